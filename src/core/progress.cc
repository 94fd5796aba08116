#include "core/progress.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <sched.h>

#include <atomic>
#include <vector>

#include "common/debug.h"

namespace ferry::progress {

bool threads_enabled = false;
thread_local bool lock_held_here = false;

namespace {

std::vector<p2p::Transport*> transports;
WaitPolicy policy = WaitPolicy::kSpinThenBlock;
int spin_microseconds = 50;
int sleep_epoll = -1;  // transports' wait fds and the wake-up eventfd
int wake_fd = -1;
std::atomic<int> sleepers{0};
// Transports that other processes feed with no fd to sleep on (shared
// memory): while there is one, a wait must keep polling and never sleep long.
int polled_transports = 0;
int (*extra_work[4])() = {};

void ensure_sleep_epoll() {
  if (sleep_epoll >= 0) return;
  sleep_epoll = epoll_create1(EPOLL_CLOEXEC);
  wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd;
  epoll_ctl(sleep_epoll, EPOLL_CTL_ADD, wake_fd, &ev);
}

}  // namespace

std::mutex& engine_mutex() {
  static std::mutex m;
  return m;
}

void add_transport(p2p::Transport* t) {
  ensure_sleep_epoll();
  transports.push_back(t);
  if (t->needs_polling()) ++polled_transports;
  if (int fd = t->wait_fd(); fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(sleep_epoll, EPOLL_CTL_ADD, fd, &ev);
  }
}

void remove_all_transports() {
  transports.clear();
  polled_transports = 0;
  if (sleep_epoll >= 0) close(sleep_epoll);
  if (wake_fd >= 0) close(wake_fd);
  sleep_epoll = wake_fd = -1;
}

void set_wait_policy(WaitPolicy p, int us) {
  policy = p;
  spin_microseconds = us;
}

WaitPolicy wait_policy() { return policy; }
int spin_us() { return spin_microseconds; }

void set_extra_work(int (*work)()) {
  for (auto& slot : extra_work) {
    if (slot == work) return;
    if (slot == nullptr) {
      slot = work;
      return;
    }
  }
}

int poll() {
  int events = 0;
  for (p2p::Transport* t : transports) events += t->progress();
  for (auto* work : extra_work)
    if (work != nullptr) events += work();
  if (events > 0 && sleepers.load(std::memory_order_relaxed) > 0) wake_sleepers();
  return events;
}

void sleep_for_events(int timeout_ms) {
  ensure_sleep_epoll();
  sleepers.fetch_add(1, std::memory_order_relaxed);
  epoll_event ev[4];
  if (polled_transports > 0) {
    // A peer's packet may sit in shared memory with no fd firing: give the
    // core away briefly (an oversubscribed peer may need it to produce
    // the packet) and return to polling. Blocking mode also sleeps a few
    // microseconds, because sched_yield alone rarely lets another
    // runnable rank onto this core.
    timeout_ms = 0;
    sched_yield();
    if (policy == WaitPolicy::kBlock) {
      timespec pause{0, 2 * 1000};
      nanosleep(&pause, nullptr);
    }
  }
  int n = epoll_wait(sleep_epoll, ev, 4, timeout_ms);
  for (int i = 0; i < n; ++i) {
    if (ev[i].data.fd == wake_fd) {
      uint64_t drained;
      ssize_t ignored = read(wake_fd, &drained, sizeof drained);
      (void)ignored;
    }
  }
  sleepers.fetch_sub(1, std::memory_order_relaxed);
}

void wake_sleepers() {
  if (wake_fd < 0) return;
  uint64_t one = 1;
  ssize_t ignored = write(wake_fd, &one, sizeof one);
  (void)ignored;
}

long long now_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace ferry::progress
