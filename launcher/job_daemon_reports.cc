// Job (job_loop.h): what the node daemons report through the tree.
#include "launcher/job_loop.h"

namespace ferry::launcher {

void Job::from_daemons(wire::Type type, std::string_view body) {
  wire::Decoder d(body);
  switch (type) {
    case wire::Type::kOutput: {
      d.u32();  // the rank: its lines are whole, and tagged already
      uint8_t stream = d.u8();
      std::string bytes = d.str();
      write_all(stream == 1 ? stdout_ : stderr_, bytes.data(), bytes.size());
      break;
    }
    case wire::Type::kRankExited: {
      int r = int(d.u32());
      pid_t pid = d.i32();
      int status = d.i32();
      if (!d.ok() || r < 0 || r >= plan_.num_ranks || !rank_running_[size_t(r)]) break;
      rank_ended(r, pid, status, host_of(r));
      break;
    }
    case wire::Type::kAbort: {
      int r = int(d.u32());
      int code = d.i32();
      if (!d.ok() || r < 0 || r >= plan_.num_ranks) break;
      FERRY_DEBUG(kLaunch, "rank %d on %s called PMIx_Abort(%d)", r, host_of(r).c_str(), code);
      fail(rank_abort_failure(r, code, host_of(r)), r);
      break;
    }
    case wire::Type::kStartFailed: {
      int position = int(d.u32());
      std::string error = d.str();
      if (!d.ok() || plan_.node_at(position) < 0) break;
      start_failed({position, error});
      break;
    }
    case wire::Type::kSubtreeUp: {
      int daemons = int(d.u32());
      int depth = int(d.u32());
      FERRY_DEBUG(kLaunch, "all %d node daemons up in %.1f ms (tree depth %d, fan-out %d)", daemons,
                  monotonic_ms() - daemons_start_ms_, depth, plan_.fanout);
      break;
    }
    case wire::Type::kNodeLost: {
      int position = int(d.u32());
      std::string reason = d.str();
      node_lost(position, reason);
      break;
    }
    case wire::Type::kSpawnStarted: {
      int job = d.i32();
      pmix_status_t status = d.i32();
      std::string why = d.str();
      int position = int(d.u32());
      if (!d.ok()) break;
      // A part that did not start sends no counter files.
      if (status != PMIX_SUCCESS)
        for (profile::CounterFileReceiver& files : profile_files_)
          if (files.nspace() == spawned_->nspace_of(job)) files.forget(position);
      std::string refused = spawned_->remote_started(job, position, status, why);
      if (!refused.empty()) {
        refused += "\n";
        write_all(stderr_, refused.data(), refused.size());
      }
      break;
    }
    case wire::Type::kSpawnedExited: {
      int job = d.i32();
      int r = int(d.u32());
      pid_t pid = d.i32();
      int status = d.i32();
      if (!d.ok()) break;
      if (std::optional<SpawnedJobs::Exit> exit = spawned_->remote_exited(job, r, pid, status)) {
        FERRY_DEBUG(kLaunch, "rank %d of %s (pid %d) %s", r, exit->nspace.c_str(), int(pid),
                    describe_wait_status(status).c_str());
        if (exit->counts && rank_failed(status)) fail(rank_exit_failure(r, pid, status, "", exit->nspace));
      }
      break;
    }
    case wire::Type::kSpawnedAbort: {
      int job = d.i32();
      int r = int(d.u32());
      int code = d.i32();
      std::string nspace = spawned_->nspace_of(job);
      if (!d.ok() || nspace.empty()) break;
      FERRY_DEBUG(kLaunch, "rank %d of %s called PMIx_Abort(%d)", r, nspace.c_str(), code);
      if (record(rank_abort_failure(r, code, "", nspace))) terminate(SIGTERM, kFailureGraceMs);
      break;
    }
    case wire::Type::kJobFence: spawned_fences_.contribute(body); break;
    case wire::Type::kRequest:
    case wire::Type::kReply:
      route(wire::Encoder(type).raw(body).finish());
      break;
    case wire::Type::kError: {
      int status = d.i32();
      std::string message = d.str();
      fail({message, status}, -1, kFinal);
      break;
    }
    case wire::Type::kProfileChunk: profile_piece(body); break;
    case wire::Type::kProfileDone: profile_done(body); break;
    default:
      break;
  }
}

void Job::profile_piece(std::string_view body) {
  for (profile::CounterFileReceiver& files : profile_files_)
    if (files.on_piece(body)) break;
  if (profile_timer_armed_) loop_.arm_timer(kProfileWaitMs);
}

void Job::profile_done(std::string_view body) {
  for (profile::CounterFileReceiver& files : profile_files_) {
    uint32_t count = 0;
    int position = files.on_done(body, &count);
    if (position < 0) continue;
    int node = plan_.node_at(position);
    FERRY_DEBUG(kLaunch, "FERRY_PROFILE: %u counter files of %s came from %s (position %d)", count,
                files.nspace().c_str(), node >= 0 ? plan_.nodes[size_t(node)].host.c_str() : "?", position);
    return;
  }
}

const std::string& Job::host_of(int rank) const {
  int node = rank >= 0 && rank < plan_.num_ranks ? node_of_rank_[size_t(rank)] : -1;
  static const std::string unknown = "?";
  return node >= 0 ? plan_.nodes[size_t(node)].host : unknown;
}

void Job::node_lost(int position, const std::string& reason) {
  int node = plan_.node_at(position);
  std::string host = node >= 0 ? plan_.nodes[size_t(node)].host : "?";
  forget_subtree(position);
  if (phase_ == Phase::kRunning) lost_hosts_.push_back({host, "its node daemon was lost (" + reason + ")"});
  fail({"mpirun: lost the node daemon on " + host + " (" + reason + "); its ranks are gone", 1});
}

}  // namespace ferry::launcher
