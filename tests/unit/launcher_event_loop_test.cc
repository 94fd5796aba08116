// The event loop that mpirun and the node daemons share: an fd's event
// reaches its kind's handler, the look before a batch sees all of it first,
// exited children are reaped with their status, other signals and the timer
// arrive.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "launcher/clock.h"
#include "launcher/event_loop.h"

namespace ferry::launcher {
namespace {

// A pipe whose read end the loop watches.
struct Pipe {
  Pipe() { EXPECT_EQ(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0); }
  ~Pipe() {
    for (int fd : fds)
      if (fd >= 0) close(fd);
  }
  void write_byte() { ASSERT_EQ(write(fds[1], "x", 1), 1); }
  void close_write_end() {
    close(fds[1]);
    fds[1] = -1;
  }
  int fds[2] = {-1, -1};
};

TEST(EventLoop, AnEventGoesToTheHandlerOfItsKindWithItsData) {
  EventLoop loop;
  Pipe a, b;
  loop.watch(a.fds[0], 3 | (uint64_t(5) << 8));
  loop.watch(b.fds[0], 7 | (uint64_t(9) << 8));
  std::vector<std::pair<uint64_t, uint32_t>> threes, sevens;
  loop.on(3, [&](uint64_t data, uint32_t events) { threes.emplace_back(data, events); });
  loop.on(7, [&](uint64_t data, uint32_t events) { sevens.emplace_back(data, events); });

  a.write_byte();
  ASSERT_TRUE(loop.run_once());
  ASSERT_EQ(threes.size(), 1u);
  EXPECT_EQ(threes[0].first, 3 | (uint64_t(5) << 8));
  EXPECT_TRUE(threes[0].second & EPOLLIN);
  EXPECT_TRUE(sevens.empty());

  // A hang-up is handed over as such.
  b.close_write_end();
  loop.unwatch(a.fds[0]);
  ASSERT_TRUE(loop.run_once());
  EXPECT_EQ(threes.size(), 1u);
  ASSERT_EQ(sevens.size(), 1u);
  EXPECT_EQ(sevens[0].first, 7 | (uint64_t(9) << 8));
  EXPECT_TRUE(sevens[0].second & EPOLLHUP);
}

TEST(EventLoop, ChangeSetsWhatAnFdIsWatchedFor) {
  EventLoop loop;
  Pipe p;
  loop.watch(p.fds[1], 4, 0);  // a writable pipe, but nothing asked for
  loop.watch(p.fds[0], 5);
  int writable = 0;
  loop.on(4, [&](uint64_t, uint32_t events) { writable += (events & EPOLLOUT) ? 1 : 0; });
  loop.on(5, [](uint64_t, uint32_t) {});
  p.write_byte();
  ASSERT_TRUE(loop.run_once());
  EXPECT_EQ(writable, 0);
  loop.change(p.fds[1], 4, EPOLLOUT);
  ASSERT_TRUE(loop.run_once());
  EXPECT_EQ(writable, 1);
}

TEST(EventLoop, TheLookSeesTheWholeBatchBeforeAnyHandlerRuns) {
  EventLoop loop;
  Pipe a, b;
  loop.watch(a.fds[0], 1);
  loop.watch(b.fds[0], 2 | (uint64_t(4) << 8));
  int handled = 0;
  std::map<int, bool> seen;
  int handled_when_looked = -1;
  loop.on(1, [&](uint64_t, uint32_t) { ++handled; });
  loop.on(2, [&](uint64_t, uint32_t) { ++handled; });
  loop.before_each_batch([&](const EventLoop::Batch& batch) {
    handled_when_looked = handled;
    for (int kind : {1, 2, 3}) seen[kind] = batch.has(uint8_t(kind));
    seen[0] = batch.has_signals();
  });
  a.write_byte();
  b.write_byte();
  ASSERT_TRUE(loop.run_once());
  EXPECT_EQ(handled_when_looked, 0);
  EXPECT_EQ(handled, 2);
  EXPECT_TRUE(seen[1]);
  EXPECT_TRUE(seen[2]);  // found by its kind, whatever its index
  EXPECT_FALSE(seen[3]);
  EXPECT_FALSE(seen[0]);
}

TEST(EventLoop, KindZeroIsTheLoopsOwn) {
  EventLoop loop;
  EXPECT_THROW(loop.on(0, [](uint64_t, uint32_t) {}), std::invalid_argument);
}

// The signals are blocked, as take_over_signals() does for mpirun, and the
// mask is put back afterwards with nothing left pending.
class Signals : public ::testing::Test {
 protected:
  void SetUp() override {
    sigemptyset(&handled_);
    for (int sig : {SIGCHLD, SIGUSR1}) sigaddset(&handled_, sig);
    ASSERT_EQ(sigprocmask(SIG_BLOCK, &handled_, &original_), 0);
    loop_.handle_signals(
        handled_, [this](int sig) { signals_.push_back(sig); },
        [this](pid_t pid, int status) { exits_[pid] = status; });
    loop_.on_timer([this] { timed_out_ = true; });
  }
  void TearDown() override {
    timespec none = {};
    while (sigtimedwait(&handled_, nullptr, &none) > 0) {
    }
    sigprocmask(SIG_SETMASK, &original_, nullptr);
  }
  // Runs the loop until `done` or 5 s: a loop that never hears of what it
  // waits for fails the test instead of hanging it.
  template <typename Done>
  void run_until(Done done) {
    loop_.arm_timer(5000);
    while (!done() && !timed_out_) ASSERT_TRUE(loop_.run_once());
    EXPECT_FALSE(timed_out_);
  }
  pid_t child_exiting_with(int code) {
    pid_t pid = fork();
    if (pid == 0) _exit(code);
    EXPECT_GT(pid, 0);
    return pid;
  }

  sigset_t handled_, original_;
  EventLoop loop_;
  std::vector<int> signals_;
  std::map<pid_t, int> exits_;
  bool timed_out_ = false;
};

TEST_F(Signals, AnExitedChildIsReapedAndReportedWithItsStatus) {
  pid_t child = child_exiting_with(7);
  run_until([&] { return !exits_.empty(); });
  ASSERT_EQ(exits_.count(child), 1u);
  EXPECT_TRUE(WIFEXITED(exits_[child]));
  EXPECT_EQ(WEXITSTATUS(exits_[child]), 7);
  EXPECT_TRUE(signals_.empty());  // SIGCHLD is the loop's, not the owner's
  errno = 0;
  EXPECT_EQ(waitpid(child, nullptr, WNOHANG), -1);  // reaped already
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(Signals, EveryChildIsReapedWhenTheirSignalsMerge) {
  // Exits before the loop looks: one pending SIGCHLD for all three.
  std::map<pid_t, int> codes;
  for (int code : {1, 2, 3}) codes[child_exiting_with(code)] = code;
  for (const auto& [pid, code] : codes) {
    siginfo_t info;
    ASSERT_EQ(waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT), 0);
  }
  run_until([&] { return exits_.size() == 3; });
  for (const auto& [pid, code] : codes) {
    ASSERT_EQ(exits_.count(pid), 1u) << "pid " << pid;
    EXPECT_EQ(WEXITSTATUS(exits_[pid]), code);
  }
}

TEST_F(Signals, AKilledChildIsReportedWithItsSignal) {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  ASSERT_GT(child, 0);
  kill(child, SIGKILL);
  run_until([&] { return exits_.count(child) == 1; });
  EXPECT_TRUE(WIFSIGNALED(exits_[child]));
  EXPECT_EQ(WTERMSIG(exits_[child]), SIGKILL);
}

TEST_F(Signals, AnotherSignalGoesToTheOwnersHandler) {
  kill(getpid(), SIGUSR1);
  run_until([&] { return !signals_.empty(); });
  EXPECT_EQ(signals_, std::vector<int>{SIGUSR1});
  EXPECT_TRUE(exits_.empty());
}

TEST_F(Signals, TheTimerFiresOnceWhenItsTimeHasCome) {
  double t0 = monotonic_ms();
  loop_.arm_timer(50);
  ASSERT_TRUE(loop_.run_once());
  EXPECT_TRUE(timed_out_);
  EXPECT_GE(monotonic_ms() - t0, 50.0);

  // Not again: a later batch holds only what the owner watches.
  timed_out_ = false;
  Pipe p;
  loop_.watch(p.fds[0], 1);
  int readable = 0;
  loop_.on(1, [&](uint64_t, uint32_t) { ++readable; });
  usleep(120 * 1000);
  p.write_byte();
  ASSERT_TRUE(loop_.run_once());
  EXPECT_EQ(readable, 1);
  EXPECT_FALSE(timed_out_);
}

TEST_F(Signals, ArmingTheTimerAgainMovesIt) {
  double t0 = monotonic_ms();
  loop_.arm_timer(20);
  loop_.arm_timer(200);
  ASSERT_TRUE(loop_.run_once());
  EXPECT_TRUE(timed_out_);
  EXPECT_GE(monotonic_ms() - t0, 200.0);
}

TEST(EventLoop, ThePeriodicTimerFiresEveryPeriodBesideTheOneShotTimer) {
  EventLoop loop;
  int ticks = 0;
  bool fired = false;
  loop.on_timer([&] { fired = true; });
  double t0 = monotonic_ms();
  loop.every(30, [&] { ++ticks; });
  loop.arm_timer(500);
  while (ticks < 3) ASSERT_TRUE(loop.run_once());
  // Three periods passed, and the one-shot timer is left alone.
  EXPECT_GE(monotonic_ms() - t0, 90.0);
  EXPECT_FALSE(fired);
  // Periods missed while the owner was busy come as one call, not a queue.
  usleep(100 * 1000);
  ASSERT_TRUE(loop.run_once());
  EXPECT_EQ(ticks, 4);
}

}  // namespace
}  // namespace ferry::launcher
