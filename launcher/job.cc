// Job (job_loop.h): set-up, the loop and the outcome of a run; run_job.
#include "launcher/job.h"

#include "launcher/job_loop.h"

namespace ferry::launcher {

Job::Job(const Options& options, const JobPlan& plan, int local_node, PmixHost& server,
    const RankDefaults& defaults)
    : options_(options),
      plan_(plan),
      local_node_(local_node),
      server_(server),
      defaults_(defaults),
      stdin_(loop_.epoll_fd(), kStdin, kStdinPipe),
      rank_running_(size_t(plan.num_ranks), false),
      node_of_rank_(size_t(plan.num_ranks), -1) {
  for (size_t n = 0; n < plan.nodes.size(); ++n)
    for (int r : plan.nodes[n].ranks) node_of_rank_[size_t(r)] = int(n);
  loop_.handle_signals(
      defaults.signals.handled, [this](int sig) { on_signal(sig); },
      [this](pid_t pid, int status) { on_child_exit(pid, status); });
  loop_.watch(server_.event_fd(), kServer);
  loop_.on_timer([this] { on_timer(); });
  // PMIx's news first: an abort is posted before the aborting rank is
  // released, so it must be known before that rank's exit is handled
  // (its SIGCHLD may be in this batch without the eventfd). kServer has
  // no handler of its own.
  loop_.before_each_batch([this](const EventLoop::Batch& batch) {
    if (batch.has(kServer) || batch.has_signals()) handle_server_events();
  });
  loop_.on(kStdin, [this](uint64_t, uint32_t) { stdin_.on_stdin_ready(); });
  loop_.on(kStdinPipe, [this](uint64_t, uint32_t events) { stdin_.on_pipe_ready(events); });
  for (Source output : {kRankStdout, kRankStderr})
    loop_.on(output, [this](uint64_t data, uint32_t) { local_->on_output(data); });
  for (Source tree : {kDaemonListen, kDaemonLink})
    loop_.on(tree, [this](uint64_t data, uint32_t events) { tree_->on_event(data, events); });
  loop_.on(kStdinRelay, [this](uint64_t, uint32_t) { relay_.on_readable(); });
  for (Source output : {kSpawnedStdout, kSpawnedStderr})
    loop_.on(output, [this](uint64_t data, uint32_t) { spawned_->on_output(data); });
  spawned_.emplace(
      loop_.epoll_fd(), kSpawnedStdout, kSpawnedStderr, spawn_context(), server_, defaults, stdin_.null_fd(),
      [this](int stream) { return stream == 1 ? &stdout_ : &stderr_; },
      [this](int position, const std::string& frame) {
        if (tree_) tree_->send_toward(position, frame);
      },
      [this](const std::string& nspace, int size, const std::vector<int>& positions) {
        if (positions.size() > 1) spawned_fences_.expect(nspace, positions);
        if (std::find(positions.begin(), positions.end(), 0) == positions.end()) server_.know_job(nspace, size);
        if (tree_) {
          wire::Encoder e(wire::Type::kKnowJob);
          e.str(nspace).i32(size).u32(uint32_t(positions.size()));
          for (int p : positions) e.i32(p);
          tree_->pass_down(e.finish());
        }
      });
  // FERRY_PROFILE without a shared directory: a spawned job's part on a
  // daemon's host counts there, and that daemon sends the part's counter
  // files once it has ended, as it does the first job's (node_daemon.cc).
  if (!plan_.profile_collect_dir.empty())
    spawned_->on_sent_to_daemons([this](const std::string& nspace, const std::vector<int>& positions) {
      profile_files_.emplace_back(plan_.profile_collect_dir, nspace, positions);
    });
  // Frames of requests and answers go through the event loop (kForward),
  // whichever thread has them.
  requests_.emplace(
      server_, [&server](std::string frame) { server.forward(std::move(frame)); },
      [this](SpawnParse& parsed) { spawn(parsed); },
      [this](const std::string& nspace, int rank) { return position_of(nspace, rank); });
  if (local_node_ >= 0) {
    LocalRanksSetup setup = node_setup(plan, local_node_, server.topology(), end_lines());
    setup.working_dir = options.working_dir;  // empty: stay where mpirun is
    local_.emplace(loop_.epoll_fd(), kRankStdout, kRankStderr, std::move(setup), defaults,
                   [this](int, int stream) { return stream == 1 ? &stdout_ : &stderr_; });
  }
}

Job::~Job() {
  if (master_port_fd_ >= 0) ::close(master_port_fd_);
}

JobOutcome Job::run() {
  double t0 = monotonic_ms();
  hold_master_port();
  if (plan_.num_daemons > 0) start_daemons();
  if (local_ && !failure_) start_local_ranks();
  if (!local_ || local_->size() == 0 || local_->rank_at(0) != 0) {
    if (tree_ && !failure_) relay_.start();  // rank 0 is on another host
    else stdin_.stop();
  }
  double started = monotonic_ms();
  // Idle time while the ranks load and connect.
  server_.session_dir().sweep_stale();
  // The job's time limit: the timer is free until the job ends.
  if (options_.timeout_s > 0 && phase_ == Phase::kRunning) loop_.arm_timer(options_.timeout_s * 1000);
  // Checkpoints on a schedule (--checkpoint-interval), counted from the
  // start of each attempt.
  if (options_.fault.checkpoint_interval_ms > 0)
    loop_.every(options_.fault.checkpoint_interval_ms, [this] { checkpoint_due("--checkpoint-interval"); });
  // Spawned jobs are part of the job: it ends with the last of them,
  // and once the daemons have sent their ranks' counter files.
  while (running_ > 0 || spawned_->running() > 0 || awaiting_profile()) {
    if (!loop_.run_once()) throw std::runtime_error(std::string("epoll_wait: ") + strerror(errno));
    if ((stdout_.broken || stderr_.broken) && !failure_)
      fail({"", 128 + SIGPIPE}, -1, kFinal);  // like a pipeline member whose reader left
    if (awaiting_profile() && !profile_timer_armed_ && running_ == 0 && spawned_->running() == 0) {
      profile_timer_armed_ = true;
      loop_.arm_timer(kProfileWaitMs);
    }
  }
  // Whatever a rank left behind in its process group goes with the job.
  if (local_) local_->kill_leftovers();
  spawned_->kill_leftovers();
  // Nobody answers from now on: this server's clients stop waiting.
  server_.forwarded().fail_all();
  spawned_fences_.fail_all();
  if (tree_) {
    tree_->fail_fences();
    tree_->pass_down(wire::Encoder(wire::Type::kShutdown).finish());
    tree_->drain(1000);
  }
  JobOutcome outcome;
  outcome.status = failure_ ? failure_->exit_status : 0;
  outcome.failure = failure_ ? failure_->message : "";
  outcome.restartable = failure_ && restartable_;
  outcome.lost_hosts = lost_hosts_;
  outcome.unreachable = unreachable_;
  outcome.started_ms = started;
  outcome.failed_ms = failed_ms_;
  FERRY_DEBUG(kLaunch, "job ended after %.1f ms: exit status %d", monotonic_ms() - t0, outcome.status);
  return outcome;
}

SpawnContext Job::spawn_context() const {
  SpawnContext c;
  c.first_nspace = plan_.nspace;
  c.secret = plan_.secret;
  c.universe_size = plan_.universe_size;
  c.hostname = local_node_ >= 0 ? plan_.nodes[size_t(local_node_)].host : "";
  if (c.hostname.empty()) {  // mpirun runs no rank: the system's name, for the job's node map
    char name[256] = "";
    ::gethostname(name, sizeof name - 1);
    c.hostname = name;
  }
  c.hosts = options_.hosts;
  c.oversubscribe = options_.oversubscribe;
  c.environment = options_.environment;
  c.tag_output = options_.tag_output;
  for (const PlanNode& node : plan_.nodes)
    if (node.position > 0) c.daemon_hosts.push_back({node.host, node.position, int(node.ranks.size())});
  return c;
}

SignalSetup take_over_signals() {
  SignalSetup s;
  sigemptyset(&s.handled);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGUSR1}) sigaddset(&s.handled, sig);
  ::sigprocmask(SIG_BLOCK, &s.handled, &s.original_mask);
  // A closed stdout must not kill mpirun before it has ended the ranks;
  // write() reports EPIPE instead. A SIGPIPE that mpirun's caller ignored
  // stays ignored for the ranks too.
  struct sigaction ignore = {}, previous = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  s.default_sigpipe = previous.sa_handler != SIG_IGN;
  return s;
}

JobOutcome run_job(const Options& options, const JobPlan& plan, int local_node, PmixHost& server,
                   const RankDefaults& defaults) {
  Job job(options, plan, local_node, server, defaults);
  return job.run();
}

}  // namespace ferry::launcher

