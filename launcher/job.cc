#include "job.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "clock.h"
#include "common/debug.h"
#include "exit_status.h"
#include "output_forwarding.h"
#include "rank_environment.h"
#include "spawn.h"
#include "stdin_forwarding.h"

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

// What an epoll event is about: the kind in the low byte, a rank above it.
enum Source : uint64_t { kSignals = 1, kServer, kTimer, kStdin, kStdinPipe, kRankStdout, kRankStderr };
uint64_t tag(Source s, int rank = 0) { return uint64_t(s) | (uint64_t(rank) << 8); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {
    if (fd_ < 0) throw std::runtime_error(std::string("cannot set up the event loop: ") + strerror(errno));
  }
  ~Fd() { ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

struct Rank {
  pid_t pid = -1;       // also its process group
  bool running = false;
  std::optional<LineForwarder> out, err;
};

class Job {
 public:
  Job(const Options& options, PmixHost& server, const RankDefaults& defaults)
      : options_(options),
        server_(server),
        defaults_(defaults),
        epoll_(::epoll_create1(EPOLL_CLOEXEC)),
        signal_fd_(::signalfd(-1, &defaults.signals.handled, SFD_CLOEXEC | SFD_NONBLOCK)),
        timer_fd_(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)),
        stdin_(epoll_.get(), tag(kStdin), tag(kStdinPipe)),
        ranks_(size_t(options.num_ranks)) {
    watch(signal_fd_.get(), tag(kSignals));
    watch(server_.event_fd(), tag(kServer));
    watch(timer_fd_.get(), tag(kTimer));
  }

  // Only reached with ranks still running if the event loop itself failed:
  // the job must not outlive mpirun, nor leave zombies.
  ~Job() {
    for (Rank& r : ranks_)
      if (r.running) {
        ::kill(-r.pid, SIGKILL);
        ::waitpid(r.pid, nullptr, 0);
      }
  }

  int run() {
    double t0 = monotonic_ms();
    start_ranks();
    // Idle time while the ranks load and connect.
    server_.session_dir().sweep_stale();
    epoll_event events[64];
    while (running_ > 0) {
      int n = ::epoll_wait(epoll_.get(), events, 64, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("epoll_wait: ") + strerror(errno));
      }
      // PMIx's news first: an abort is posted before the aborting rank is
      // released, so it must be known before that rank's exit is handled
      // (its SIGCHLD may be in this batch without the eventfd).
      for (int i = 0; i < n; ++i)
        if (events[i].data.u64 == tag(kServer) || events[i].data.u64 == tag(kSignals)) {
          handle_server_events();
          break;
        }
      for (int i = 0; i < n; ++i) dispatch(events[i]);
      if ((stdout_.broken || stderr_.broken) && !failure_)
        fail({"", 128 + SIGPIPE});  // like a pipeline member whose reader left
    }
    // Whatever a rank left behind in its process group goes with the job.
    for (const Rank& r : ranks_)
      if (r.pid > 0) ::kill(-r.pid, SIGKILL);
    int status = failure_ ? failure_->exit_status : 0;
    FERRY_DEBUG(kLaunch, "job ended after %.1f ms: exit status %d", monotonic_ms() - t0, status);
    return status;
  }

 private:
  void watch(int fd, uint64_t data, uint32_t events = EPOLLIN) {
    epoll_event ev = {};
    ev.events = events;
    ev.data.u64 = data;
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0)
      throw std::runtime_error(std::string("epoll_ctl: ") + strerror(errno));
  }

  // ---- Starting -----------------------------------------------------------

  void start_ranks() {
    double t0 = monotonic_ms();
    Environment base = base_environment(environ, options_.environment);
    std::vector<char*> argv;
    for (const std::string& a : options_.program_args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    for (int r = 0; r < options_.num_ranks; ++r) {
      try {
        start_rank(r, base, argv);
      } catch (const std::exception& e) {
        // The ranks already started are ended like after any failure.
        fail({"mpirun: cannot start rank " + std::to_string(r) + ": " + e.what(), 1});
      }
      if (failure_) break;
    }
    FERRY_DEBUG(kLaunch, "started %d ranks of %s in %.2f ms", running_, options_.program.c_str(),
                monotonic_ms() - t0);
  }

  // Throws with the reason when the rank cannot be started.
  void start_rank(int r, const Environment& base, const std::vector<char*>& argv) {
    Environment env(base);
    add_rank_variables(env, r, options_.num_ranks);
    server_.setup_fork(r, env.pmix_handle());

    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    if (::pipe2(err, O_CLOEXEC) != 0) {
      ::close(out[0]);
      ::close(out[1]);
      throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    }
    ::fcntl(out[0], F_SETFL, O_NONBLOCK);  // mpirun's ends only: a rank's
    ::fcntl(err[0], F_SETFL, O_NONBLOCK);  // writes must block when full
    RankLaunch launch{options_.program_path.c_str(),
                      argv.data(),
                      env.envp(),
                      r == 0 ? stdin_.rank0_fd() : stdin_.null_fd(),
                      out[1],
                      err[1],
                      options_.working_dir.empty() ? nullptr : options_.working_dir.c_str(),
                      &defaults_.signals.original_mask,
                      defaults_.signals.default_sigpipe,
                      defaults_.file_limit ? &*defaults_.file_limit : nullptr};
    SpawnResult started = spawn_rank(launch);
    ::close(out[1]);
    ::close(err[1]);

    Rank& rank = ranks_[size_t(r)];
    std::string prefix = options_.tag_output ? "[" + std::to_string(r) + "] " : "";
    rank.out.emplace(out[0], &stdout_, prefix);
    rank.err.emplace(err[0], &stderr_, prefix);
    if (started.pid < 0)
      throw std::runtime_error(std::string(started.step) + ": " + strerror(started.error));
    rank.pid = started.pid;
    rank.running = true;
    ++running_;
    by_pid_[started.pid] = r;
    watch(rank.out->fd(), tag(kRankStdout, r));
    watch(rank.err->fd(), tag(kRankStderr, r));
    if (r == 0) stdin_.rank0_started();
    // A child whose exec failed has exited (127); it is reaped as usual.
    if (started.error != 0)
      throw std::runtime_error(std::string(started.step) + " " + options_.program_path + ": " +
                               strerror(started.error));
    FERRY_DEBUG(kLaunch, "rank %d started: pid %d", r, int(started.pid));
  }

  // ---- Events -------------------------------------------------------------

  void dispatch(const epoll_event& ev) {
    uint64_t data = ev.data.u64;
    int r = int(data >> 8);
    switch (Source(data & 0xff)) {
      case kSignals: handle_signals(); break;
      case kServer: break;  // handled first, see run()
      case kTimer: handle_timer(); break;
      case kStdin: stdin_.on_stdin_ready(); break;
      case kStdinPipe: stdin_.on_pipe_ready(ev.events); break;
      case kRankStdout: forward(ranks_[size_t(r)].out); break;
      case kRankStderr: forward(ranks_[size_t(r)].err); break;
    }
  }

  void forward(std::optional<LineForwarder>& stream) {
    if (!stream) return;  // closed earlier in this batch
    // EOF: the rank (and whatever shares its output) closed the pipe, so
    // its last line is complete as it is.
    if (!stream->on_readable()) {
      stream->finish(end_lines());
      stream.reset();
    }
  }

  // An unfinished last line gets a newline when lines of several ranks (or
  // tagged lines) could otherwise run together; a 1-rank job's output is
  // passed on byte for byte.
  bool end_lines() const { return options_.num_ranks > 1 || options_.tag_output; }

  void handle_server_events() {
    for (const ServerEvent& e : server_.take_events()) {
      if (e.rank < 0 || e.rank >= options_.num_ranks) continue;
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
      }
    }
  }

  void handle_signals() {
    signalfd_siginfo info;
    while (::read(signal_fd_.get(), &info, sizeof info) == ssize_t(sizeof info)) {
      int sig = int(info.ssi_signo);
      switch (sig) {
        case SIGCHLD: reap(); break;
        case SIGINT:
        case SIGTERM:
        case SIGHUP:
          if (phase_ == Phase::kRunning) {
            record(interrupted_failure(sig));
            terminate(sig, kInterruptGraceMs);
          } else {
            kill_all();  // asked again: no more waiting
          }
          break;
        case SIGTSTP:
          // Ctrl-Z: the ranks are in their own process groups, so the
          // terminal does not stop them; stop them, then mpirun itself.
          signal_ranks(SIGSTOP);
          ::kill(::getpid(), SIGSTOP);
          break;
        case SIGCONT:
          signal_ranks(SIGCONT);
          stdin_.on_continue();
          break;
      }
    }
  }

  void reap() {
    int status;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
      auto it = by_pid_.find(pid);
      if (it == by_pid_.end()) continue;
      int r = it->second;
      Rank& rank = ranks_[size_t(r)];
      rank.running = false;
      --running_;
      // Everything the rank wrote is in its pipes by now.
      for (std::optional<LineForwarder>* stream : {&rank.out, &rank.err})
        if (*stream) {
          (*stream)->finish(end_lines());
          stream->reset();
        }
      if (r == 0) stdin_.stop();
      FERRY_DEBUG(kLaunch, "rank %d (pid %d) %s", r, int(pid), describe_wait_status(status).c_str());
      // A rank that exits 0 without PMIx_Finalize is not told apart: Open
      // PMIx reports a finalize, and a connection lost without one, the same
      // way and possibly after the exit. Its peers are not left hanging in
      // PMIx: a fence it was part of fails for them.
      if (rank_failed(status)) fail(rank_exit_failure(r, pid, status));
    }
  }

  void handle_timer() {
    uint64_t expirations;
    if (::read(timer_fd_.get(), &expirations, sizeof expirations) < 0) return;
    kill_all();
  }

  // ---- Ending -------------------------------------------------------------

  // The first failure decides the message and the exit status.
  bool record(const Failure& f) {
    if (failure_) return false;
    failure_ = f;
    if (!f.message.empty()) {
      std::string line = f.message + "\n";
      write_all(stderr_, line.data(), line.size());
    }
    return true;
  }

  void fail(const Failure& f, int spared_rank = -1) {
    if (record(f)) terminate(SIGTERM, kFailureGraceMs, spared_rank);
  }

  // Sends `sig` to every rank's process group (but `spared_rank`'s), and
  // SIGKILL to all that remain after `grace_ms`.
  void terminate(int sig, int grace_ms, int spared_rank = -1) {
    if (phase_ != Phase::kRunning) return;
    phase_ = Phase::kTerminating;
    FERRY_DEBUG(kLaunch, "ending the job: signal %d to %d ranks, SIGKILL after %d ms", sig, running_,
                grace_ms);
    for (size_t r = 0; r < ranks_.size(); ++r)
      if (ranks_[r].running && int(r) != spared_rank) ::kill(-ranks_[r].pid, sig);
    itimerspec when = {};
    when.it_value.tv_sec = grace_ms / 1000;
    when.it_value.tv_nsec = long(grace_ms % 1000) * 1000000L;
    ::timerfd_settime(timer_fd_.get(), 0, &when, nullptr);
  }

  void kill_all() {
    if (phase_ == Phase::kKilling) return;
    phase_ = Phase::kKilling;
    FERRY_DEBUG(kLaunch, "killing %d remaining ranks", running_);
    signal_ranks(SIGKILL);
  }

  void signal_ranks(int sig) {
    for (const Rank& r : ranks_)
      if (r.running) ::kill(-r.pid, sig);
  }

  enum class Phase { kRunning, kTerminating, kKilling };

  const Options& options_;
  PmixHost& server_;
  const RankDefaults& defaults_;
  Fd epoll_, signal_fd_, timer_fd_;
  OutputSink stdout_{STDOUT_FILENO}, stderr_{STDERR_FILENO};
  StdinForwarder stdin_;
  std::vector<Rank> ranks_;
  std::unordered_map<pid_t, int> by_pid_;
  int running_ = 0;
  Phase phase_ = Phase::kRunning;
  std::optional<Failure> failure_;
};

}  // namespace

SignalSetup take_over_signals() {
  SignalSetup s;
  sigemptyset(&s.handled);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT}) sigaddset(&s.handled, sig);
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

int run_job(const Options& options, PmixHost& server, const RankDefaults& defaults) {
  Job job(options, server, defaults);
  return job.run();
}

}  // namespace ferry::launcher
