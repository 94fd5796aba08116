// Job (job_loop.h): failures, and ending the ranks.
#include "launcher/job_loop.h"

namespace ferry::launcher {

void Job::give_up_on_profile() {
  std::string ranks;  // "the ranks on h1, h2; those of ferry.1.1 on h3"
  for (const profile::CounterFileReceiver& files : profile_files_) {
    if (files.waiting_for().empty()) continue;
    std::string hosts;
    for (int position : files.waiting_for()) {
      int node = plan_.node_at(position);
      hosts += (hosts.empty() ? "" : ", ") + (node >= 0 ? plan_.nodes[size_t(node)].host : "?");
    }
    ranks += ranks.empty() ? "the ranks" : "; those";
    if (files.nspace() != plan_.nspace) ranks += " of " + files.nspace();
    ranks += " on " + hosts;
  }
  std::string line = "mpirun: FERRY_PROFILE: the counter files of " + ranks + " did not come within " +
                     std::to_string(kProfileWaitMs / 1000) + " s; the report goes without them\n";
  write_all(stderr_, line.data(), line.size());
  profile_files_.clear();
}

bool Job::record(const Failure& f, Restart restart) {
  if (failure_) return false;
  failure_ = f;
  restartable_ = restart == kRestartable;
  failed_ms_ = monotonic_ms();
  if (!f.message.empty()) {
    std::string line = f.message + "\n";
    write_all(stderr_, line.data(), line.size());
  }
  return true;
}

void Job::fail(const Failure& f, int spared_rank, Restart restart) {
  if (record(f, restart)) terminate(SIGTERM, kFailureGraceMs, spared_rank);
}

void Job::terminate(int sig, int grace_ms, int spared_rank, const std::string& spared_nspace,
               int spared_spawned_rank) {
  if (phase_ != Phase::kRunning) return;
  phase_ = Phase::kTerminating;
  FERRY_DEBUG(kLaunch, "ending the job: signal %d to %d ranks and %d spawned, SIGKILL after %d ms", sig,
              running_, spawned_->running(), grace_ms);
  signal_ranks(sig, spared_rank);
  spawned_->signal(sig, spared_nspace, spared_spawned_rank);
  loop_.arm_timer(grace_ms);
}

void Job::kill_all() {
  if (phase_ == Phase::kKilling) return;
  phase_ = Phase::kKilling;
  FERRY_DEBUG(kLaunch, "killing %d remaining ranks and %d spawned", running_, spawned_->running());
  signal_ranks(SIGKILL);
  spawned_->signal(SIGKILL);
  if (tree_) loop_.arm_timer(kRemoteKillWaitMs);
}

void Job::signal_ranks(int sig, int spared_rank) {
  if (local_) local_->signal(sig, spared_rank);
  if (tree_) tree_->pass_down(wire::Encoder(wire::Type::kSignal).i32(sig).i32(spared_rank).finish());
}

}  // namespace ferry::launcher
