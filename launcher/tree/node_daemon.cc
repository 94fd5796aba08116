#include "launcher/tree/node_daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "common/debug.h"
#include "launcher/event_loop.h"
#include "launcher/job.h"
#include "launcher/pmix/pmix_host.h"
#include "launcher/pmix/request_service.h"
#include "launcher/profile/counter_forwarding.h"
#include "launcher/ranks/file_limit.h"
#include "launcher/ranks/local_ranks.h"
#include "launcher/ranks/node_setup.h"
#include "launcher/ranks/spawn.h"
#include "launcher/spawned/daemon_spawned_jobs.h"
#include "launcher/spawned/spawned_fences.h"
#include "launcher/start/daemon_start.h"
#include "launcher/tree/daemon_tree.h"

extern char** environ;

namespace ferry::launcher {
namespace {

// What an event is about: its kind in the loop (see event_loop.h).
enum Source : uint8_t {
  kServer = 1, kParent, kRankStdout, kRankStderr, kListen, kLink, kDiagnostics, kRank0Stdin, kSpawnedStdout,
  kSpawnedStderr
};

// The "rank" of a daemon's own output lines.
constexpr uint32_t kDaemonItself = 0xffffffffu;

class NodeDaemon {
 public:
  NodeDaemon(const JobPlan& plan, int position, int parent_fd, int listen_fd, const std::string& listen_addresses,
             int listen_port, int diagnostics_fd)
      : plan_(plan),
        position_(position),
        listen_addresses_(listen_addresses),
        listen_port_(listen_port),
        node_(plan.node_at(position)),
        here_(plan.nodes[size_t(node_)]),
        parent_(parent_fd) {
    tree_ = std::make_unique<DaemonTree>(loop_.epoll_fd(), kListen, kLink, plan, position, listen_fd, true,
                                         [](wire::Type, std::string_view) {});
    tree_->set_parent(&parent_);
    loop_.watch(parent_.fd(), kParent);
    if (diagnostics_fd >= 0) {
      diagnostics_sink_.fd = -1;
      diagnostics_sink_.deliver = [this](const char* data, size_t len) {
        tree_->send_up(
            wire::Encoder(wire::Type::kOutput).u32(kDaemonItself).u8(2).str({data, len}).finish());
      };
      diagnostics_.emplace(diagnostics_fd, &diagnostics_sink_, "");
      loop_.watch(diagnostics_fd, kDiagnostics);
    }
    // The PMIx server's news first (fence contributions, aborts): kServer
    // has no handler of its own.
    loop_.before_each_batch([this](const EventLoop::Batch& batch) {
      if (batch.has(kServer)) handle_server_events();
    });
    loop_.on(kParent, [this](uint64_t, uint32_t events) { handle_parent(events); });
    for (Source output : {kRankStdout, kRankStderr})
      loop_.on(output, [this](uint64_t data, uint32_t) {
        if (local_) local_->on_output(data);
      });
    for (Source output : {kSpawnedStdout, kSpawnedStderr})
      loop_.on(output, [this](uint64_t data, uint32_t) {
        if (spawned_) spawned_->on_output(data);
      });
    for (Source tree : {kListen, kLink})
      loop_.on(tree, [this](uint64_t data, uint32_t events) { tree_->on_event(data, events); });
    loop_.on(kRank0Stdin, [this](uint64_t, uint32_t events) {
      if (events & (EPOLLERR | EPOLLHUP)) close_stdin();
      else write_stdin();
    });
    loop_.on(kDiagnostics, [this](uint64_t, uint32_t) {
      std::fflush(nullptr);
      if (diagnostics_ && !diagnostics_->on_readable()) diagnostics_.reset();
    });
  }

  [[noreturn]] void run() {
    try {
      start();
    } catch (const std::exception& e) {
      std::string message = e.what();
      if (message.rfind("mpirun: ", 0) != 0) message = "mpirun: " + here_.host + ": " + message;
      report_error(message);
      report_unstarted();
    }
    for (;;) {
      // Before every wait, the first included: start() may have queued
      // frames upwards already.
      update_parent_interest();
      if (!loop_.run_once()) finish(1);
    }
  }

 private:
  void start() {
    start_children_here();
    // Like mpirun for its host: hundreds of ranks here need more open files
    // than the usual soft limit.
    if (std::string problem =
            fit_file_limit("ferryd", int(here_.ranks.size()), plan_.fanout + 1, &defaults_.file_limit);
        !problem.empty())
      throw std::runtime_error(problem);
    // MASTER_PORT (chosen by mpirun on its own host, training_environment.h)
    // must be free here, where rank 0 will bind it: held until the ranks start.
    int master_port = -1;
    if (plan_.hold_master_port && !here_.ranks.empty() && here_.ranks[0] == 0) {
      std::string error;
      master_port = hold_port(plan_.training.master_port, &error);
      if (master_port < 0)
        throw std::runtime_error("mpirun: " + here_.host + ": MASTER_PORT " +
                                 std::to_string(plan_.training.master_port) + " is taken there (" + error +
                                 "); run again, or give MASTER_PORT with -x");
    }
    defaults_.inherited_fds = inherited_descriptors();  // before the PMIx server's sockets
    defaults_.signals = take_over_signals();  // before PMIx starts its thread
    // ferryd ignored SIGPIPE from its first line (ferryd.cc), so the above
    // cannot see what its caller had: ranks get the default, as they do on
    // mpirun's host.
    defaults_.signals.default_sigpipe = true;
    loop_.handle_signals(
        defaults_.signals.handled, [this](int sig) { on_signal(sig); },
        [this](pid_t pid, int status) { on_child_exit(pid, status); });
    server_.emplace(here_.host);
    // Spawns, names and direct modex questions go up to mpirun.
    server_->forwarded().set_position(uint32_t(position_));
    // Jobs that mpirun spawns on this host.
    SpawnedIo io;
    io.epoll_fd = loop_.epoll_fd();
    io.stdout_kind = kSpawnedStdout;
    io.stderr_kind = kSpawnedStderr;
    io.defaults = &defaults_;
    io.null_fd = null_fd();
    spawned_.emplace(
        *server_, io, [this](const std::string& frame) { tree_->send_up(frame); },
        [this](const std::string& nspace, const std::vector<int>& ranks) { send_profile(nspace, ranks); });
    loop_.watch(server_->event_fd(), kServer);
    server_->register_job(job_description(plan_, node_));

    LocalRanksSetup setup = node_setup(plan_, node_, server_->topology(), plan_.num_ranks > 1 || plan_.tag_output);
    // Open MPI's rule: mpirun's directory if this host has it too, else home.
    if (!plan_.working_dir_given && ::access(setup.working_dir.c_str(), X_OK) != 0) {
      const char* home = std::getenv("HOME");
      setup.working_dir = home != nullptr ? home : "/";
    }
    sinks_.resize(2 * here_.ranks.size());
    for (size_t i = 0; i < here_.ranks.size(); ++i)
      for (int stream : {1, 2}) {
        OutputSink& sink = sinks_[2 * i + size_t(stream - 1)];
        sink.fd = -1;
        int rank = here_.ranks[i];
        sink.deliver = [this, rank, stream](const char* data, size_t len) {
          tree_->send_up(
              wire::Encoder(wire::Type::kOutput).u32(uint32_t(rank)).u8(uint8_t(stream)).str({data, len}).finish());
        };
      }
    local_.emplace(loop_.epoll_fd(), kRankStdout, kRankStderr, std::move(setup), defaults_,
                   [this](int index, int stream) { return &sinks_[2 * size_t(index) + size_t(stream - 1)]; });
    Environment base = base_environment(environ, count_profile_here());
    int rank0_stdin = open_rank0_stdin();
    if (master_port >= 0) ::close(master_port);  // rank 0 binds it now
    for (int i = 0; i < local_->size(); ++i) {
      try {
        local_->start(i, base, *server_, local_->rank_at(i) == 0 ? rank0_stdin : null_fd());
        if (local_->rank_at(i) == 0 && rank0_stdin != null_fd()) ::close(rank0_stdin);
      } catch (const std::exception& e) {
        report_error("mpirun: cannot start rank " + std::to_string(local_->rank_at(i)) + " on " + here_.host +
                     ": " + e.what());
        report_unstarted();
        return;
      }
    }
  }

  // The daemons below this one, before anything else here: the tree's
  // start is what the whole job waits for. Blocking, before the event loop
  // first runs: the loop reaps every child process (waitpid(-1)), and a
  // launch agent's exit status belongs to its start. Meanwhile what comes
  // from the parent and the children waits in their sockets, but the
  // parent's going ends this daemon at once (StartWatch).
  void start_children_here() {
    StartWatch watch{parent_.fd(), [this] { finish(1); }, nullptr};
    if (std::optional<StartFailure> failed =
            start_children(plan_, position_, listen_addresses_, listen_port_, watch)) {
      tree_->send_up(wire::Encoder(wire::Type::kStartFailed)
                         .u32(uint32_t(failed->position))
                         .str(failed->error)
                         .finish());
      return;
    }
    tree_->report_subtree_if_up();
  }

  // FERRY_PROFILE without a shared directory: this host's ranks count into
  // the daemon's session directory (on this host's disk, removed with the
  // daemon), whose files go to mpirun once they have ended
  // (counter_forwarding.h); so do the processes of jobs spawned here
  // (on_spawn_job). Returns what the ranks' environment gets on top of the
  // daemon's (not setenv: the PMIx server's threads run already).
  std::vector<std::pair<std::string, std::string>> count_profile_here() {
    if (plan_.profile_collect_dir.empty()) return {};
    std::string dir = server_->session_dir().path() + "/profile";
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      throw std::runtime_error("FERRY_PROFILE: cannot make " + dir + ": " + std::strerror(errno));
    profile_dir_ = dir;
    return {{"FERRY_PROFILE_DIR", dir}};
  }

  // Once every rank here has ended (or never started), their counter files
  // go up; mpirun waits for them before it writes the report.
  void send_profile_when_done() {
    if (plan_.profile_collect_dir.empty() || profile_sent_ || (local_ && local_->running() > 0)) return;
    profile_sent_ = true;
    send_profile(plan_.nspace, here_.ranks);
  }

  // The counter files of job `nspace`'s `ranks` here, which have all ended
  // (the first job's, or a spawned job's part). One sender per job: mpirun
  // waits for each job's files from each daemon that ran some of its ranks.
  void send_profile(const std::string& nspace, const std::vector<int>& ranks) {
    if (plan_.profile_collect_dir.empty()) return;  // counted elsewhere (FERRY_PROFILE_DIR) or not at all
    profile_senders_.emplace_back(profile_dir_, nspace, ranks, position_);
    profile_senders_.back().pump(parent_);
  }

  // mpirun counts every rank of a started daemon as running until told of
  // its exit. A rank that never ran is told of as one whose exec failed
  // (exit 127), after the kError that explains it; otherwise mpirun would
  // wait out its SIGKILL timeout for it. A rank with a pid is reaped and
  // reported as usual.
  void report_unstarted() {
    for (size_t i = 0; i < here_.ranks.size(); ++i) {
      if (local_ && local_->pid_of(int(i)) > 0) continue;
      tree_->send_up(
          wire::Encoder(wire::Type::kRankExited).u32(uint32_t(here_.ranks[i])).i32(0).i32(127 << 8).finish());
    }
    send_profile_when_done();
  }

  // Rank 0 reads mpirun's stdin, which arrives as kStdin frames: through a
  // pipe whose write end stays here.
  int open_rank0_stdin() {
    if (here_.ranks.empty() || here_.ranks[0] != 0) return null_fd();
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return null_fd();
    stdin_write_ = fds[1];
    ::fcntl(stdin_write_, F_SETFL, O_NONBLOCK);
    loop_.watch(stdin_write_, kRank0Stdin, 0);  // EPOLLOUT only while bytes wait; errors always reported
    return fds[0];
  }

  void on_stdin_frame(std::string_view body) {
    wire::Decoder d(body);
    std::string bytes = d.str();
    if (here_.ranks.empty() || here_.ranks[0] != 0) {
      // Not ours: on towards rank 0's daemon.
      int position = plan_.nodes[0].position;
      for (const PlanNode& n : plan_.nodes)
        if (!n.ranks.empty() && n.ranks[0] == 0) position = n.position;
      tree_->send_toward(position, wire::Encoder(wire::Type::kStdin).raw(body).finish());
      return;
    }
    if (bytes.empty()) stdin_ended_ = true;
    stdin_pending_ += bytes;
    write_stdin();
  }

  void write_stdin() {
    while (stdin_write_ >= 0 && !stdin_pending_.empty()) {
      ssize_t n = ::write(stdin_write_, stdin_pending_.data(), stdin_pending_.size());
      if (n > 0) {
        stdin_pending_.erase(0, size_t(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && errno == EAGAIN) {
        break;
      } else {  // rank 0 closed its stdin: nothing more to give it
        close_stdin();
        return;
      }
    }
    if (stdin_write_ < 0) return;
    if (stdin_pending_.empty() && stdin_ended_) {
      close_stdin();
      return;
    }
    loop_.change(stdin_write_, kRank0Stdin, stdin_pending_.empty() ? 0u : uint32_t(EPOLLOUT));
  }

  void close_stdin() {
    if (stdin_write_ >= 0) ::close(stdin_write_);  // also leaves the epoll set
    stdin_write_ = -1;
    stdin_pending_.clear();
  }

  int null_fd() {
    static int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    return fd;
  }

  void report_error(const std::string& message) {
    tree_->send_up(wire::Encoder(wire::Type::kError).i32(1).str(message).finish());
  }

  void handle_server_events() {
    for (ServerEvent& e : server_->take_events()) {
      switch (e.kind) {
        case ServerEvent::Kind::kFence:
          if (e.nspace == plan_.nspace) tree_->local_fence(std::move(e.data), e.reply);
          else spawned_fences_.local(e.nspace, std::move(e.data), e.reply);
          break;
        case ServerEvent::Kind::kForward: tree_->send_up(e.data); break;
        case ServerEvent::Kind::kAbort:
          if (e.job != 0) {
            if (spawned_) spawned_->aborted(e.job, e.rank, e.code);
            break;
          }
          tree_->send_up(wire::Encoder(wire::Type::kAbort).u32(uint32_t(e.rank)).i32(e.code).finish());
          break;
        default: break;
      }
    }
  }

  void on_signal(int sig) {
    // Someone ends the daemon: its ranks go with it. SIGTSTP and SIGCONT
    // (handled too, see take_over_signals) mean nothing here.
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) finish(1);
  }

  void on_child_exit(pid_t pid, int status) {
    if (spawned_ && spawned_->reaped(pid, status)) return;
    if (!local_) return;
    if (std::optional<LocalRanks::Exit> exit = local_->reaped(pid, status)) {
      tree_->send_up(wire::Encoder(wire::Type::kRankExited)
                         .u32(uint32_t(exit->rank))
                         .i32(exit->pid)
                         .i32(exit->wait_status)
                         .finish());
      send_profile_when_done();
    }
  }

  void handle_parent(uint32_t events) {
    if (events & EPOLLOUT) {
      if (!parent_.on_writable()) finish(1);
      for (profile::CounterFileSender& sender : profile_senders_) sender.pump(parent_);
      tree_->parent_drained();
    }
    if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR))) return;
    bool alive = parent_.on_readable([&](wire::Type type, std::string_view body) {
      wire::Decoder d(body);
      switch (type) {
        case wire::Type::kFenceRelease: {
          tree_->pass_down(wire::Encoder(type).raw(body).finish());
          uint64_t sequence = d.u64();
          std::string all = d.str();
          tree_->release_fence(sequence, all);
          break;
        }
        case wire::Type::kSignal: {
          tree_->pass_down(wire::Encoder(type).raw(body).finish());
          int sig = d.i32();
          int spared = d.i32();
          if (local_) local_->signal(sig, spared);
          if (spawned_) spawned_->signal(sig);
          break;
        }
        case wire::Type::kSpawnJob: on_spawn_job(body); break;
        case wire::Type::kKnowJob: {
          tree_->pass_down(wire::Encoder(type).raw(body).finish());
          std::string nspace = d.str();
          int size = d.i32();
          bool runs_here = false;
          for (uint32_t n = std::min<uint32_t>(d.u32(), 1u << 16), i = 0; i < n && d.ok(); ++i)
            runs_here = runs_here || d.i32() == position_;
          if (d.ok() && !runs_here && server_) server_->know_job(nspace, size);
          break;
        }
        case wire::Type::kDropJob: {
          int target = int(d.u32());
          int job = d.i32();
          if (target != position_) tree_->send_toward(target, wire::Encoder(type).raw(body).finish());
          else if (d.ok() && spawned_) spawned_->drop(job);
          break;
        }
        case wire::Type::kJobFenceRelease: {
          int target = int(d.u32());
          if (target != position_) tree_->send_toward(target, wire::Encoder(type).raw(body).finish());
          else if (d.ok()) spawned_fences_.release(body.substr(4));
          break;
        }
        case wire::Type::kStdin: on_stdin_frame(body); break;
        case wire::Type::kRequest: on_request(body); break;
        case wire::Type::kReply: on_reply(body); break;
        case wire::Type::kCheckpointDue:
          tree_->pass_down(wire::Encoder(type).raw(body).finish());
          if (server_ && local_) server_->notify_checkpoint_due(plan_.nspace);
          break;
        case wire::Type::kShutdown:
          tree_->pass_down(wire::Encoder(type).raw(body).finish());
          tree_->drain(1000);
          finish(0);
        default: break;
      }
    });
    // mpirun (or the daemon above) is gone: nobody is left to report to.
    if (!alive) finish(1);
  }

  // A job that mpirun spawns here, or on a host below.
  void on_spawn_job(std::string_view body) {
    RemoteSpawn spawn;
    if (!decode_remote_spawn(body, &spawn)) return;
    if (int(spawn.position) != position_) {
      tree_->send_toward(int(spawn.position), wire::Encoder(wire::Type::kSpawnJob).raw(body).finish());
      return;
    }
    // Its processes count here, as this host's ranks do, not in mpirun's
    // directory that the job's environment names (which only mpirun's host
    // has); the later value wins.
    if (!profile_dir_.empty()) spawn.setup.environment.emplace_back("FERRY_PROFILE_DIR", profile_dir_);
    if (!spawned_) {  // this daemon could not start: mpirun knows why
      tree_->send_up(wire::Encoder(wire::Type::kSpawnStarted)
                         .i32(spawn.setup.job_id)
                         .i32(PMIX_ERR_JOB_FAILED_TO_LAUNCH)
                         .str("the node daemon did not start")
                         .finish());
      return;
    }
    spawned_->start(std::move(spawn));
  }

  // A direct modex for a process of this host, or of a host below.
  void on_request(std::string_view body) {
    Request r;
    if (!decode_request(body, &r)) return;
    if (int(r.target) != position_) {
      tree_->send_toward(int(r.target), wire::Encoder(wire::Type::kRequest).raw(body).finish());
      return;
    }
    if (server_) answer_direct_modex(r, [this](std::string frame) { server_->forward(std::move(frame)); });
  }

  // The answer to a request of this host's server, or of one below.
  void on_reply(std::string_view body) {
    Reply r;
    if (!decode_reply(body, &r)) return;
    if (int(r.origin) != position_) {
      tree_->send_toward(int(r.origin), wire::Encoder(wire::Type::kReply).raw(body).finish());
      return;
    }
    if (server_) server_->forwarded().complete(r);
  }

  void update_parent_interest() {
    loop_.change(parent_.fd(), kParent, EPOLLIN | (parent_.wants_write() ? EPOLLOUT : 0u));
  }

  // Ends the daemon; ranks still running are killed with their groups.
  [[noreturn]] void finish(int status) {
    FERRY_DEBUG(kLaunch, "node daemon on %s ends (%d)", here_.host.c_str(), status);
    if (diagnostics_) {
      std::fflush(nullptr);
      diagnostics_->finish(true);
    }
    // Last words up before going (diagnostics, a kError, exits): the link
    // is flushed for a moment.
    while (parent_.wants_write()) {
      pollfd p = {parent_.fd(), POLLOUT, 0};
      if (::poll(&p, 1, 500) != 1 || !parent_.on_writable()) break;
    }
    if (local_) {
      local_->signal(SIGKILL);
      local_->kill_leftovers();
    }
    if (spawned_) spawned_->kill_all();
    spawned_fences_.fail_all();
    if (server_) server_->prepare_exit();
    ::_exit(status);
  }

  const JobPlan& plan_;
  int position_;
  std::string listen_addresses_;  // where this daemon's children connect
  int listen_port_;
  int node_;
  const PlanNode& here_;
  DaemonLink parent_;
  EventLoop loop_;
  RankDefaults defaults_;
  std::optional<PmixHost> server_;
  std::unique_ptr<DaemonTree> tree_;
  std::deque<OutputSink> sinks_;
  int stdin_write_ = -1;        // rank 0's stdin, when rank 0 is here
  std::string stdin_pending_;   // arrived from mpirun, not yet taken by rank 0
  bool stdin_ended_ = false;
  OutputSink diagnostics_sink_{-1, false, {}};
  std::optional<LineForwarder> diagnostics_;
  std::optional<LocalRanks> local_;
  std::optional<DaemonSpawnedJobs> spawned_;
  std::string profile_dir_;  // where this host's ranks count (FERRY_PROFILE), or ""
  bool profile_sent_ = false;  // the first job's files (or their sender) are on their way
  std::deque<profile::CounterFileSender> profile_senders_;  // the first job's, then spawned jobs' parts
  // Fences of spawned jobs on several hosts: this host's share goes up.
  SpawnedFences spawned_fences_{position_, [this](int, const std::string& frame) { tree_->send_up(frame); }};
};

}  // namespace

void run_node_daemon(const JobPlan& plan, int position, int parent_fd, int listen_fd,
                     const std::string& listen_addresses, int listen_port, int diagnostics_fd) {
  static NodeDaemon daemon(plan, position, parent_fd, listen_fd, listen_addresses, listen_port, diagnostics_fd);
  daemon.run();
}

}  // namespace ferry::launcher
