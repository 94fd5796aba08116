#include "launcher/job.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/config.h"
#include "common/debug.h"
#include "launcher/clock.h"
#include "launcher/event_loop.h"
#include "launcher/pmix/request_service.h"
#include "launcher/profile/counter_forwarding.h"
#include "launcher/ranks/exit_status.h"
#include "launcher/ranks/local_ranks.h"
#include "launcher/ranks/node_setup.h"
#include "launcher/ranks/output_forwarding.h"
#include "launcher/ranks/rank_environment.h"
#include "launcher/ranks/stdin_forwarding.h"
#include "launcher/ranks/stdin_relay.h"
#include "launcher/spawned/spawned_fences.h"
#include "launcher/spawned/spawned_jobs.h"
#include "launcher/start/daemon_start.h"
#include "launcher/tree/daemon_tree.h"

extern char** environ;

namespace ferry::launcher {
namespace {

// After a failure the other ranks get SIGTERM, and SIGKILL if they are still
// there after this long: short, as a failed job's ranks have nothing left to
// do, but enough for a rank to flush and exit on SIGTERM.
constexpr int kFailureGraceMs = 300;
// After mpirun passes on SIGINT/SIGTERM, what the user asked for: a second
// for the ranks to act on it themselves.
constexpr int kInterruptGraceMs = 1000;
// After SIGKILL went out, how long mpirun waits to hear of remote ranks'
// ends. A daemon that says nothing by then is given up on: mpirun exits,
// and the daemon, losing its link, kills its ranks itself.
constexpr int kRemoteKillWaitMs = 5000;
// FERRY_PROFILE: after the last rank ended, how long mpirun waits for the
// next piece of the daemons' counter files before it writes the report
// without the rest (marked partial). Counted again at every piece.
constexpr int kProfileWaitMs = 10000;

// What an event is about: its kind in the loop (see event_loop.h).
enum Source : uint8_t {
  kServer = 1, kStdin, kStdinPipe, kRankStdout, kRankStderr, kDaemonListen, kDaemonLink, kStdinRelay,
  kSpawnedStdout, kSpawnedStderr
};

class Job {
 public:
  Job(const Options& options, const JobPlan& plan, int local_node, PmixHost& server,
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

  ~Job() {
    if (master_port_fd_ >= 0) ::close(master_port_fd_);
  }
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  JobOutcome run() {
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

 private:
  // An unfinished last line gets a newline when lines of several ranks (or
  // tagged lines) could otherwise run together; a 1-rank job's output is
  // passed on byte for byte.
  bool end_lines() const { return options_.num_ranks > 1 || options_.tag_output; }

  // What jobs that ranks spawn share with this one (spawned_jobs.h).
  SpawnContext spawn_context() const {
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

  // ---- Starting -----------------------------------------------------------

  // mpirun starts its own children in the daemon tree; each of them starts
  // its own (node_daemon.cc), and so on down. A failure below them arrives
  // as kStartFailed.
  void start_daemons() {
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
    if (std::optional<StartFailure> failed = start_children(plan_, 0, addresses, port)) {
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
      profile_files_.emplace(plan_.profile_collect_dir, plan_.nspace, std::move(positions));
    }
  }

  bool awaiting_profile() const { return profile_files_ && !profile_files_->waiting_for().empty(); }

  // Nothing more comes from the daemons that have not sent their counter
  // files: the report is written without them (and says it is partial).
  void give_up_on_profile() {
    std::string hosts;
    for (int position : profile_files_->waiting_for()) {
      int node = plan_.node_at(position);
      hosts += (hosts.empty() ? "" : ", ") + (node >= 0 ? plan_.nodes[size_t(node)].host : "?");
    }
    std::string line = "mpirun: FERRY_PROFILE: the counter files of the ranks on " + hosts + " did not come within " +
                       std::to_string(kProfileWaitMs / 1000) + " s; the report goes without them\n";
    write_all(stderr_, line.data(), line.size());
    profile_files_.reset();
  }

  // A daemon could not be started, by mpirun or by the daemon above it:
  // the job ends, and a restart leaves its host out (restarts.h).
  void start_failed(const StartFailure& failed) {
    int node = plan_.node_at(failed.position);
    std::string host = node >= 0 ? plan_.nodes[size_t(node)].host : "?";
    std::string why = failed.error;
    if (std::string prefix = "mpirun: " + host + ": "; why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    forget_subtree(failed.position);
    if (!unreachable_) unreachable_ = LostHost{host, "cannot start its node daemon: " + why};
    fail({start_failure_message(plan_, failed), 1}, -1, kFinal);
  }

  // Ranks of the daemon at `position` and below are not running (any more):
  // nobody will report their exits.
  void forget_subtree(int position) {
    std::vector<int> lost = {position};
    for (size_t i = 0; i < lost.size(); ++i)
      for (int c : tree_children(lost[i], plan_.fanout, plan_.num_daemons)) lost.push_back(c);
    for (int p : lost) {
      int n = plan_.node_at(p);
      if (n >= 0)
        for (int r : plan_.nodes[size_t(n)].ranks) set_running(r, false);
      spawned_->remote_lost(p);
      if (profile_files_) profile_files_->forget(p);
    }
  }

  // MASTER_PORT (chosen by mpirun, training_environment.h) stays bound here
  // while the other hosts start, so that rank 0 finds it free.
  void hold_master_port() {
    if (!plan_.hold_master_port || !local_ || local_->size() == 0 || local_->rank_at(0) != 0) return;
    std::string error;
    master_port_fd_ = launcher::hold_port(plan_.training.master_port, &error);
    if (master_port_fd_ < 0)
      fail({"mpirun: MASTER_PORT " + std::to_string(plan_.training.master_port) +
                " was taken before the ranks started (" + error + "); run again, or give MASTER_PORT with -x",
            1},
           -1, kFinal);
  }

  void start_local_ranks() {
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

  void set_running(int rank, bool running) {
    if (rank_running_[size_t(rank)] == running) return;
    rank_running_[size_t(rank)] = running;
    running_ += running ? 1 : -1;
  }

  // ---- Events -------------------------------------------------------------

  void handle_server_events() {
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

  // PMIx_Spawn from a rank: started, or refused with one line (the
  // spawning rank gets the error status and decides; the job goes on).
  void spawn(SpawnParse& parsed) {
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

  // A forwarded request or its answer (forwarded_requests.h), from this
  // host's server or from below: served here, or sent toward the daemon
  // that answers it or that asked.
  void route(const std::string& frame) {
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

  // Where process `rank` of `nspace` runs: its host's tree position, or -1.
  int position_of(const std::string& nspace, int rank) const {
    if (nspace == plan_.nspace) {
      if (rank < 0 || rank >= plan_.num_ranks || node_of_rank_[size_t(rank)] < 0) return -1;
      return plan_.nodes[size_t(node_of_rank_[size_t(rank)])].position;
    }
    return spawned_->position_of(nspace, rank);
  }

  // A spawned process connected, finalized or aborted.
  void spawned_rank_event(const ServerEvent& e) {
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

  // What the daemons report (through the tree).
  void from_daemons(wire::Type type, std::string_view body) {
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
      case wire::Type::kProfileChunk:
        if (!profile_files_) break;
        profile_files_->on_piece(body);
        if (profile_timer_armed_) loop_.arm_timer(kProfileWaitMs);
        break;
      case wire::Type::kProfileDone: {
        uint32_t files = 0;
        int position = profile_files_ ? profile_files_->on_done(body, &files) : -1;
        int node = position > 0 ? plan_.node_at(position) : -1;
        if (node >= 0)
          FERRY_DEBUG(kLaunch, "FERRY_PROFILE: %u counter files of %zu ranks came from %s (position %d)", files,
                      plan_.nodes[size_t(node)].ranks.size(), plan_.nodes[size_t(node)].host.c_str(), position);
        break;
      }
      default:
        break;
    }
  }

  // By table: with every rank's exit reported through here, a search of
  // the plan would cost O(ranks^2) over a job on many hosts.
  const std::string& host_of(int rank) const {
    int node = rank >= 0 && rank < plan_.num_ranks ? node_of_rank_[size_t(rank)] : -1;
    static const std::string unknown = "?";
    return node >= 0 ? plan_.nodes[size_t(node)].host : unknown;
  }

  // A daemon's link closed: it and every daemon below it are gone (those
  // below lose their parent and end their ranks), so are their ranks.
  void node_lost(int position, const std::string& reason) {
    int node = plan_.node_at(position);
    std::string host = node >= 0 ? plan_.nodes[size_t(node)].host : "?";
    forget_subtree(position);
    if (phase_ == Phase::kRunning) lost_hosts_.push_back({host, "its node daemon was lost (" + reason + ")"});
    fail({"mpirun: lost the node daemon on " + host + " (" + reason + "); its ranks are gone", 1});
  }

  void on_signal(int sig) {
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

  void on_child_exit(pid_t pid, int status) {
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

  // `host` is empty for a rank of mpirun's own host.
  void rank_ended(int r, pid_t pid, int status, const std::string& host) {
    set_running(r, false);
    FERRY_DEBUG(kLaunch, "rank %d (pid %d%s%s) %s", r, int(pid), host.empty() ? "" : " on ", host.c_str(),
                describe_wait_status(status).c_str());
    // A rank that exits 0 without PMIx_Finalize is not told apart: Open
    // PMIx reports a finalize, and a connection lost without one, the same
    // way and possibly after the exit. Its peers are not left hanging in
    // PMIx: a fence it was part of fails for them.
    if (rank_failed(status)) fail(rank_exit_failure(r, pid, status, host));
  }

  void on_timer() {
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

  // A checkpoint is due: every rank's server raises the event (this host's
  // here, the others' through their daemons), and libmpi's handler sets the
  // flag that MPIX_Checkpoint_due agrees on.
  void checkpoint_due(const char* why) {
    if (phase_ != Phase::kRunning) return;
    FERRY_DEBUG(kLaunch, "checkpoint due (%s): telling %d ranks", why, running_);
    if (local_) server_.notify_checkpoint_due(plan_.nspace);
    if (tree_) tree_->pass_down(wire::Encoder(wire::Type::kCheckpointDue).finish());
  }

  // ---- Ending -------------------------------------------------------------

  // Whether --max-restarts may start the job again after a failure: not
  // when the user ended it, its output was closed, or it could not start
  // (the same start would fail the same way).
  enum Restart { kRestartable, kFinal };

  // The first failure decides the message and the exit status.
  bool record(const Failure& f, Restart restart = kRestartable) {
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

  void fail(const Failure& f, int spared_rank = -1, Restart restart = kRestartable) {
    if (record(f, restart)) terminate(SIGTERM, kFailureGraceMs, spared_rank);
  }

  // Sends `sig` to every rank's process group (but `spared_rank`'s, of
  // the first job or of spawned job `spared_nspace`), and SIGKILL to all
  // that remain after `grace_ms`.
  void terminate(int sig, int grace_ms, int spared_rank = -1, const std::string& spared_nspace = "",
                 int spared_spawned_rank = -1) {
    if (phase_ != Phase::kRunning) return;
    phase_ = Phase::kTerminating;
    FERRY_DEBUG(kLaunch, "ending the job: signal %d to %d ranks and %d spawned, SIGKILL after %d ms", sig,
                running_, spawned_->running(), grace_ms);
    signal_ranks(sig, spared_rank);
    spawned_->signal(sig, spared_nspace, spared_spawned_rank);
    loop_.arm_timer(grace_ms);
  }

  void kill_all() {
    if (phase_ == Phase::kKilling) return;
    phase_ = Phase::kKilling;
    FERRY_DEBUG(kLaunch, "killing %d remaining ranks and %d spawned", running_, spawned_->running());
    signal_ranks(SIGKILL);
    spawned_->signal(SIGKILL);
    if (tree_) loop_.arm_timer(kRemoteKillWaitMs);
  }

  void signal_ranks(int sig, int spared_rank = -1) {
    if (local_) local_->signal(sig, spared_rank);
    if (tree_) tree_->pass_down(wire::Encoder(wire::Type::kSignal).i32(sig).i32(spared_rank).finish());
  }

  enum class Phase { kRunning, kTerminating, kKilling };
  // mpirun's exit status for a job ended by its time limit, as timeout(1)'s.
  static constexpr int kTimedOutStatus = 124;

  const Options& options_;
  const JobPlan& plan_;
  int master_port_fd_ = -1;
  int local_node_;
  PmixHost& server_;
  const RankDefaults& defaults_;
  EventLoop loop_;
  OutputSink stdout_{STDOUT_FILENO}, stderr_{STDERR_FILENO};
  StdinForwarder stdin_;
  std::optional<LocalRanks> local_;
  std::optional<SpawnedJobs> spawned_;  // always there; empty until a rank spawns
  std::optional<RequestService> requests_;  // what daemons' servers forward
  // Fences of spawned jobs on several hosts (mpirun gathers them).
  SpawnedFences spawned_fences_{0, [this](int position, const std::string& frame) {
                                  if (tree_) tree_->send_toward(position, frame);
                                }};
  std::unique_ptr<DaemonTree> tree_;
  // Rank 0's stdin when rank 0 runs under a daemon (stdin_relay.h).
  StdinRelay relay_{loop_, kStdinRelay, stdin_, [this](std::string_view bytes) {
                      int rank0_position = plan_.nodes[size_t(node_of_rank_[0])].position;
                      tree_->send_toward(rank0_position, wire::Encoder(wire::Type::kStdin).str(bytes).finish());
                    }};
  std::vector<bool> rank_running_;  // every rank of the job, wherever it runs
  std::vector<int> node_of_rank_;   // the plan's node of every rank
  int running_ = 0;
  Phase phase_ = Phase::kRunning;
  std::optional<Failure> failure_;
  bool restartable_ = false;
  double failed_ms_ = 0;
  std::vector<LostHost> lost_hosts_;
  std::optional<LostHost> unreachable_;
  double daemons_start_ms_ = 0;  // when mpirun began to start its children
  // FERRY_PROFILE: the daemons' counter files, written where the report reads
  // (absent when they are not sent, or once given up on).
  std::optional<profile::CounterFileReceiver> profile_files_;
  bool profile_timer_armed_ = false;
};

}  // namespace

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
