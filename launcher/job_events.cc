// Job (job_loop.h): signals, exits, PMIx events and timers.
#include "launcher/job_loop.h"

namespace ferry::launcher {

void Job::handle_server_events() {
  for (ServerEvent& e : server_.take_events()) {
    if (e.kind == ServerEvent::Kind::kFence) {
      if (e.nspace == plan_.nspace) tree_->local_fence(std::move(e.data), e.reply);
      else spawned_fences_.local(e.nspace, std::move(e.data), e.reply);
      continue;
    }
    if (e.kind == ServerEvent::Kind::kSpawn) {
      spawn(*e.spawn);
      continue;
    }
    if (e.kind == ServerEvent::Kind::kForward) {
      route(e.data);
      continue;
    }
    if (e.job != 0) {
      spawned_rank_event(e);
      continue;
    }
    if (e.rank < 0 || e.rank >= plan_.num_ranks) continue;
    switch (e.kind) {
      case ServerEvent::Kind::kConnected:
        FERRY_DEBUG(kLaunch, "rank %d connected to PMIx", e.rank);
        break;
      case ServerEvent::Kind::kFinalized:
        FERRY_DEBUG(kLaunch, "rank %d finalized PMIx (or left it)", e.rank);
        break;
      case ServerEvent::Kind::kAbort:
        FERRY_DEBUG(kLaunch, "rank %d called PMIx_Abort(%d)", e.rank, e.code);
        // The aborting rank exits by itself with its code; it is only
        // killed if it lingers past the grace period.
        fail(rank_abort_failure(e.rank, e.code), e.rank);
        break;
      case ServerEvent::Kind::kFence:
      case ServerEvent::Kind::kSpawn:
      case ServerEvent::Kind::kForward: break;
    }
  }
}

void Job::spawn(SpawnParse& parsed) {
  SpawnRequest& request = parsed.request;
  if (phase_ != Phase::kRunning) {
    request.answer(PMIX_ERR_JOB_CANCELED);
    return;
  }
  std::string refused;
  if (!parsed.problem.empty()) {
    request.answer(parsed.status);
    refused = "mpirun: cannot spawn processes for rank " + std::to_string(request.parent_rank) + " of " +
              request.parent_nspace + ": " + parsed.problem;
  } else {
    refused = spawned_->start(request, local_ ? local_->running() : 0, running_);
  }
  if (!refused.empty()) {
    refused += "\n";
    write_all(stderr_, refused.data(), refused.size());
  }
}

void Job::route(const std::string& frame) {
  if (frame.size() < wire::kFrameHeader) return;
  std::string_view body = std::string_view(frame).substr(wire::kFrameHeader);
  if (wire::Type(uint8_t(frame[4])) == wire::Type::kRequest) {
    Request r;
    if (!decode_request(body, &r)) return;
    if (r.target == 0) requests_->serve(r);
    else if (tree_) tree_->send_toward(int(r.target), frame);
    return;
  }
  Reply r;
  if (!decode_reply(body, &r)) return;
  if (r.origin == 0) server_.forwarded().complete(r);
  else if (tree_) tree_->send_toward(int(r.origin), frame);
}

int Job::position_of(const std::string& nspace, int rank) const {
  if (nspace == plan_.nspace) {
    if (rank < 0 || rank >= plan_.num_ranks || node_of_rank_[size_t(rank)] < 0) return -1;
    return plan_.nodes[size_t(node_of_rank_[size_t(rank)])].position;
  }
  return spawned_->position_of(nspace, rank);
}

void Job::spawned_rank_event(const ServerEvent& e) {
  std::string nspace = spawned_->nspace_of(e.job);
  if (nspace.empty()) return;
  switch (e.kind) {
    case ServerEvent::Kind::kAbort:
      FERRY_DEBUG(kLaunch, "rank %d of %s called PMIx_Abort(%d)", e.rank, nspace.c_str(), e.code);
      if (record(rank_abort_failure(e.rank, e.code, "", nspace)))
        terminate(SIGTERM, kFailureGraceMs, -1, nspace, e.rank);
      break;
    default:
      FERRY_DEBUG(kLaunch, "rank %d of %s %s PMIx", e.rank, nspace.c_str(),
                  e.kind == ServerEvent::Kind::kConnected ? "connected to" : "finalized");
      break;
  }
}

void Job::on_signal(int sig) {
  switch (sig) {
    case SIGINT:
    case SIGTERM:
    case SIGHUP:
      if (phase_ == Phase::kRunning) {
        record(interrupted_failure(sig), kFinal);
        terminate(sig, kInterruptGraceMs);
      } else {
        kill_all();  // asked again: no more waiting
      }
      break;
    case SIGTSTP:
      // Ctrl-Z: the ranks are in their own process groups, so the
      // terminal does not stop them; stop them, then mpirun itself.
      signal_ranks(SIGSTOP);
      spawned_->signal(SIGSTOP);
      ::kill(::getpid(), SIGSTOP);
      break;
    case SIGCONT:
      signal_ranks(SIGCONT);
      spawned_->signal(SIGCONT);
      stdin_.on_continue();
      break;
    case SIGUSR1:  // the user asks for a checkpoint now
      checkpoint_due("SIGUSR1");
      break;
  }
}

void Job::on_child_exit(pid_t pid, int status) {
  if (std::optional<SpawnedJobs::Exit> spawned = spawned_->reaped(pid, status)) {
    FERRY_DEBUG(kLaunch, "rank %d of %s (pid %d) %s", spawned->rank, spawned->nspace.c_str(), int(pid),
                describe_wait_status(status).c_str());
    if (spawned->counts && rank_failed(status))
      fail(rank_exit_failure(spawned->rank, pid, status, "", spawned->nspace));
    return;
  }
  if (!local_) return;
  std::optional<LocalRanks::Exit> exit = local_->reaped(pid, status);
  if (!exit) return;
  if (exit->rank == 0) stdin_.stop();
  rank_ended(exit->rank, pid, status, "");
}

void Job::rank_ended(int r, pid_t pid, int status, const std::string& host) {
  set_running(r, false);
  FERRY_DEBUG(kLaunch, "rank %d (pid %d%s%s) %s", r, int(pid), host.empty() ? "" : " on ", host.c_str(),
              describe_wait_status(status).c_str());
  // A rank that exits 0 without PMIx_Finalize is not told apart: Open
  // PMIx reports a finalize, and a connection lost without one, the same
  // way and possibly after the exit. Its peers are not left hanging in
  // PMIx: a fence it was part of fails for them.
  if (rank_failed(status)) fail(rank_exit_failure(r, pid, status, host));
}

void Job::on_timer() {
  if (running_ == 0 && spawned_->running() == 0) {
    // Every rank has ended: only the daemons' counter files were awaited.
    if (awaiting_profile()) give_up_on_profile();
    return;
  }
  if (phase_ == Phase::kRunning) {
    fail({"mpirun: the job ran past its time limit of " + std::to_string(options_.timeout_s) +
              " s (--timeout or MPIEXEC_TIMEOUT); ending it",
          kTimedOutStatus});
    return;
  }
  if (phase_ == Phase::kKilling) {
    // Remote ranks not heard of since SIGKILL: their daemons will end
    // them when mpirun's links close.
    FERRY_DEBUG(kLaunch, "giving up on %d ranks on unresponsive hosts", running_);
    for (int r = 0; r < plan_.num_ranks; ++r) set_running(r, false);
    spawned_->remote_lost(-1);
    if (awaiting_profile()) give_up_on_profile();
    return;
  }
  kill_all();
}

void Job::checkpoint_due(const char* why) {
  if (phase_ != Phase::kRunning) return;
  FERRY_DEBUG(kLaunch, "checkpoint due (%s): telling %d ranks", why, running_);
  if (local_) server_.notify_checkpoint_due(plan_.nspace);
  if (tree_) tree_->pass_down(wire::Encoder(wire::Type::kCheckpointDue).finish());
}

}  // namespace ferry::launcher
