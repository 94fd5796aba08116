// The progress engine: one loop that moves every transport forward.
//
// There is no progress thread and no thread per peer: whichever MPI call is
// waiting drives the transports. A blocking call polls for a short while
// (cheap when a reply is microseconds away) and then sleeps in the kernel on
// the transports' file descriptors (FERRY_WAIT, FERRY_SPIN_US). Ranks that
// outnumber the cores poll with sched_yield between polls, so that the core
// goes to a rank that shares it and has work, and sleep only after
// FERRY_YIELD_US without news: a core that falls idle takes tens of
// microseconds to wake (more in a VM), longer than most waits.
#pragma once

#include <mutex>

#include "p2p/transport.h"

namespace ferry::progress {

enum class WaitPolicy { kSpin, kBlock, kSpinThenBlock };

void add_transport(p2p::Transport* t);
// Work that poll() also drives, besides the transports (collective
// schedules, nonblocking communicator construction); returns the number of
// events. Each caller registers its function (a few at most); registering
// one again changes nothing. Call with the engine lock held.
void set_extra_work(int (*work)());
void remove_all_transports();
void set_wait_policy(WaitPolicy policy, int spin_us);
WaitPolicy wait_policy();

// One pass over all transports; returns the number of events.
int poll();

// Under MPI_THREAD_MULTIPLE every entry into the engine holds this lock; at
// lower thread levels taking it is a predictable branch and no atomic.
extern bool threads_enabled;
std::mutex& engine_mutex();

// The lock is re-entrant per thread in effect: a thread that already holds
// it (a collective schedule starting its next round from inside poll())
// takes it again as a no-op.
extern thread_local bool lock_held_here;

class Lock {
 public:
  Lock() : held_(threads_enabled && !lock_held_here) { relock(); }
  ~Lock() { unlock(); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
  void unlock() {
    if (held_ && lock_held_here) {
      lock_held_here = false;
      engine_mutex().unlock();
    }
  }
  void relock() {
    if (held_ && !lock_held_here) {
      engine_mutex().lock();
      lock_held_here = true;
    }
  }

 private:
  bool held_;
};

// Sleeps in the kernel until a transport has work or `timeout_ms` passes
// (a transport fed through memory may cancel the sleep: Transport::arm_wakeup).
// Called without the engine lock held.
void sleep_for_events(int timeout_ms);
// Wakes threads sleeping in sleep_for_events (something they wait for may
// have completed on another thread).
void wake_sleepers();

// Gives the core to another runnable thread, if any (sched_yield).
void yield_core();

// Microseconds since an arbitrary start, from the monotonic clock (vDSO).
long long now_us();
int spin_us();

// Empty passes between two reads of the clock while spinning: a poll that
// finds nothing costs a few cache reads, and the clock (vDSO, slower still
// in a VM) would cost more than the poll itself.
constexpr unsigned kPassesPerClockRead = 64;

// Drives progress until done() holds. done() is evaluated with the engine
// lock held (the caller must hold `lock`).
template <typename Done>
void wait_until(Lock& lock, Done done) {
  if (done()) return;
  WaitPolicy policy = wait_policy();
  // The clock is first read after the first idle passes (most waits on a
  // peer that is busy too end before that).
  long long spin_until = 0;
  bool moved = true;  // events since the clock was last read (or a fresh wait)
  unsigned idle_passes = 0;
  for (;;) {
    int events = poll();
    if (done()) return;
    if (events > 0) {
      // Spin counts from the last sign of life: a stream that keeps moving
      // (a large message in pieces) must not pay for a sleep and a wake-up
      // each time one poll comes back empty.
      moved = true;
      continue;
    }
    if (policy == WaitPolicy::kSpin) continue;
    if (policy == WaitPolicy::kSpinThenBlock && ++idle_passes % kPassesPerClockRead != 0) continue;
    long long now = now_us();
    if (moved) {
      spin_until = now + spin_us();
      moved = false;
    }
    if (now < spin_until) {
      // Ranks that outnumber the cores poll politely: the core goes to a
      // rank that shares it and has work, yet never falls idle, because
      // waking an idle core costs tens of microseconds (more in a VM).
      // Other threads of this rank get the engine meanwhile.
      if (policy == WaitPolicy::kBlock) {
        lock.unlock();
        yield_core();
        lock.relock();
      }
      continue;
    }
    lock.unlock();
    sleep_for_events(threads_enabled ? 1 : 100);
    lock.relock();
  }
}

}  // namespace ferry::progress
