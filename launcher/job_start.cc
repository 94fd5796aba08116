// Job (job_loop.h): the daemon tree's start and this host's ranks.
#include "launcher/job_loop.h"

#include <signal.h>

extern char** environ;

namespace ferry::launcher {

void Job::start_daemons() {
  int port = 0;
  int listen_fd = listen_for_daemons(&port);
  daemons_start_ms_ = monotonic_ms();
  tree_ = std::make_unique<DaemonTree>(
      loop_.epoll_fd(), kDaemonListen, kDaemonLink, plan_, 0, listen_fd, local_node_ >= 0,
      [this](wire::Type type, std::string_view body) { from_daemons(type, body); });
  if (plan_.direct_modex)
    FERRY_DEBUG(kLaunch, "%d ranks: contact cards by direct modex (FERRY_DIRECT_MODEX_RANKS)", plan_.num_ranks);
  std::string addresses;
  for (const std::string& a : reachable_addresses()) addresses += (addresses.empty() ? "" : ",") + a;
  // SIGINT, SIGTERM or SIGHUP meanwhile (blocked in mpirun, read by the
  // event loop's signalfd) ends the start at once, as in the loop: a batch
  // system's SIGTERM to mpirun alone would otherwise wait for the starts.
  int interrupted_by = 0;
  auto interrupted = [&interrupted_by] {
    sigset_t ending;
    sigemptyset(&ending);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&ending, sig);
    const timespec now = {0, 0};
    interrupted_by = ::sigtimedwait(&ending, nullptr, &now);
    return interrupted_by > 0;
  };
  if (std::optional<StartFailure> failed = start_children(plan_, 0, addresses, port, {-1, nullptr, interrupted})) {
    if (failed->interrupted) {
      record(interrupted_failure(interrupted_by), kFinal);
      terminate(interrupted_by, kInterruptGraceMs);
      return;
    }
    start_failed(*failed);
    return;
  }
  // Their ranks are running from now on, as far as mpirun knows: each
  // daemon reports every exit, and a daemon that cannot be started
  // further down takes its subtree's ranks out again (start_failed).
  for (const PlanNode& node : plan_.nodes)
    if (node.position > 0)
      for (int r : node.ranks) set_running(r, true);
  // FERRY_PROFILE without a shared directory: each daemon with ranks
  // sends their counter files once they have ended.
  if (!plan_.profile_collect_dir.empty()) {
    std::vector<int> positions;
    for (const PlanNode& node : plan_.nodes)
      if (node.position > 0 && !node.ranks.empty()) positions.push_back(node.position);
    profile_files_.emplace_back(plan_.profile_collect_dir, plan_.nspace, std::move(positions));
  }
}

void Job::start_failed(const StartFailure& failed) {
  int node = plan_.node_at(failed.position);
  std::string host = node >= 0 ? plan_.nodes[size_t(node)].host : "?";
  std::string why = failed.error;
  if (std::string prefix = "mpirun: " + host + ": "; why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
  forget_subtree(failed.position);
  if (!unreachable_) unreachable_ = LostHost{host, "cannot start its node daemon: " + why};
  fail({start_failure_message(plan_, failed), 1}, -1, kFinal);
}

void Job::forget_subtree(int position) {
  std::vector<int> lost = {position};
  for (size_t i = 0; i < lost.size(); ++i)
    for (int c : tree_children(lost[i], plan_.fanout, plan_.num_daemons)) lost.push_back(c);
  for (int p : lost) {
    int n = plan_.node_at(p);
    if (n >= 0)
      for (int r : plan_.nodes[size_t(n)].ranks) set_running(r, false);
    spawned_->remote_lost(p);
    for (profile::CounterFileReceiver& files : profile_files_) files.forget(p);
  }
}

void Job::hold_master_port() {
  if (!plan_.hold_master_port || !local_ || local_->size() == 0 || local_->rank_at(0) != 0) return;
  std::string error;
  master_port_fd_ = launcher::hold_port(plan_.training.master_port, &error);
  if (master_port_fd_ < 0)
    fail({"mpirun: MASTER_PORT " + std::to_string(plan_.training.master_port) +
              " was taken before the ranks started (" + error + "); run again, or give MASTER_PORT with -x",
          1},
         -1, kFinal);
}

void Job::start_local_ranks() {
  double t0 = monotonic_ms();
  if (master_port_fd_ >= 0) ::close(master_port_fd_);  // rank 0 binds it now
  master_port_fd_ = -1;
  Environment base = base_environment(environ, options_.environment);
  for (int i = 0; i < local_->size(); ++i) {
    int r = local_->rank_at(i);
    try {
      local_->start(i, base, server_, r == 0 ? stdin_.rank0_fd() : stdin_.null_fd());
      if (local_->pid_of(i) > 0) set_running(r, true);
      if (r == 0) stdin_.rank0_started();
    } catch (const std::exception& e) {
      if (local_->pid_of(i) > 0) set_running(r, true);
      // The ranks already started are ended like after any failure.
      fail({"mpirun: cannot start rank " + std::to_string(r) + ": " + e.what(), 1}, -1, kFinal);
    }
    if (failure_) break;
  }
  FERRY_DEBUG(kLaunch, "started %d ranks of %s in %.2f ms", local_->running(), options_.program.c_str(),
              monotonic_ms() - t0);
}

}  // namespace ferry::launcher
