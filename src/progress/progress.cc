#include "progress/progress.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <vector>

#include "common/config.h"
#include "common/debug.h"
#include "progress/tasks.h"

namespace ferry::progress {

bool threads_enabled = false;
thread_local int lock_depth __attribute__((tls_model("initial-exec"))) = 0;
std::atomic<int> contenders{0};
bool someone_waits = false;
bool announce_pending = false;

namespace {

std::vector<Source*> sources;
WaitPolicy policy = WaitPolicy::kSpinThenBlock;
int spin_microseconds = 50;
int sleep_milliseconds = 100;
int sleep_epoll = -1;  // the sources' wait fds and the wake-up eventfd
int wake_fd = -1;

// Who waits, and how (lock held; progress.h, "Threads"). At most one thread
// sleeps in the kernel; the others park on the condition variable.
bool kernel_sleeper = false;
int parked = 0;
std::condition_variable parked_threads;

void update_someone_waits() { someone_waits = threads_enabled && (kernel_sleeper || parked > 0); }

void ring_wake_fd() {
  uint64_t one = 1;
  ssize_t ignored = write(wake_fd, &one, sizeof one);
  (void)ignored;
}

void drain_wake_fd() {
  uint64_t drained;
  ssize_t ignored = read(wake_fd, &drained, sizeof drained);
  (void)ignored;
}

// Another thread sleeps in the kernel for this process: wait until it, or
// any thread, announces an event (or the timeout passes).
void park(int timeout_ms) {
  if (announce_pending) announce();  // before the lock is let go
  ++parked;
  update_someone_waits();
  // The engine lock is held by this thread (Lock); the condition variable
  // lets go of it while parked and takes it back before returning.
  std::unique_lock<std::mutex> held(engine_mutex(), std::adopt_lock);
  parked_threads.wait_for(held, std::chrono::milliseconds(timeout_ms));
  held.release();
  --parked;
  update_someone_waits();
}

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

void add_source(Source* source) {
  ensure_sleep_epoll();
  sources.push_back(source);
  if (int fd = source->wait_fd(); fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(sleep_epoll, EPOLL_CTL_ADD, fd, &ev);
  }
}

void remove_all_sources() {
  sources.clear();
  if (sleep_epoll >= 0) close(sleep_epoll);
  if (wake_fd >= 0) close(wake_fd);
  sleep_epoll = wake_fd = -1;
}

void set_wait_policy(WaitPolicy p, int us, int ms) {
  policy = p;
  sleep_milliseconds = ms > 0 ? ms : 1;
  // Ranks that outnumber the cores poll longer, because their polls yield
  // the core (wait_until) and waking a core that went idle costs more.
  spin_microseconds = p == WaitPolicy::kBlock ? static_cast<int>(config::integer("FERRY_YIELD_US")) : us;
}

WaitPolicy wait_policy() { return policy; }

void enable_locking() {
  if (threads_enabled) return;
  assert(lock_depth == 0);
  threads_enabled = true;
}
int spin_us() { return spin_microseconds; }

void expect_peer_copy(size_t bytes) {
  const long long lasts = std::min(static_cast<long long>(bytes / kPeerCopyBytesPerUs), kPeerCopySpinMaxUs);
  if (lasts <= spin_microseconds) return;
  const long long until = now_us() + lasts;
  long long seen = peer_copy_until.load(std::memory_order_relaxed);
  while (seen < until && !peer_copy_until.compare_exchange_weak(seen, until, std::memory_order_relaxed)) {
  }
}

int sleep_ms() { return sleep_milliseconds; }

int poll() {
  int events = 0;
  for (Source* s : sources) events += s->progress();
  events += advance_tasks();
  if (events > 0) note_event();
  return events;
}

void announce() {
  announce_pending = false;
  if (kernel_sleeper) ring_wake_fd();
  if (parked > 0) parked_threads.notify_all();
}

void sleep_for_events(Lock& lock, int timeout_ms) {
  ensure_sleep_epoll();
  if (threads_enabled && kernel_sleeper) {
    park(timeout_ms);
    return;
  }
  kernel_sleeper = true;
  update_someone_waits();
  // Sources fed through memory (shared memory) must first ask their peers
  // to make the fd fire; one that finds work already there cancels the
  // sleep (shm's wakeup.h has the handshake). Arming reads and changes the
  // sources' state, so it runs with the lock held.
  size_t armed = 0;
  while (armed < sources.size() && sources[armed]->arm_wakeup()) ++armed;
  bool sleep = armed == sources.size();
  if (sleep) {
    lock.unlock();
    epoll_event ev[4];
    int n = epoll_wait(sleep_epoll, ev, 4, timeout_ms);
    for (int i = 0; i < n; ++i)
      if (ev[i].data.fd == wake_fd) drain_wake_fd();
    lock.relock();
  }
  for (size_t i = 0; i < armed; ++i) sources[i]->disarm_wakeup(sleep);
  kernel_sleeper = false;
  update_someone_waits();
  // The parked threads check their waits; one of them sleeps in the kernel
  // next if it still has to wait.
  if (parked > 0) parked_threads.notify_all();
}

void yield_core() { sched_yield(); }

long long now_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace ferry::progress
