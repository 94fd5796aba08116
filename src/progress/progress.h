// The progress engine: one loop that moves every source forward (each
// transport, and the operations advanced in the background:
// progress/source.h, progress/tasks.h).
//
// There is no progress thread and no thread per peer: whichever MPI call is
// waiting drives the transports. (One exception, asleep until needed: RMA's
// doorbell thread runs the engine when an origin on another host rings,
// rma/doorbell.h.) A blocking call polls for a short while
// (cheap when a reply is microseconds away) and then sleeps in the kernel on
// the transports' file descriptors (FERRY_WAIT, FERRY_SPIN_US). Ranks that
// outnumber the cores poll with sched_yield between polls, so that the core
// goes to a rank that shares it and has work, and sleep only after
// FERRY_YIELD_US without news: a core that falls idle takes tens of
// microseconds to wake (more in a VM), longer than most waits.
//
// Threads (MPI_THREAD_MULTIPLE; docs/architecture.md, "Threads"). One lock,
// the engine lock, guards everything progress touches: transports, matching,
// requests' state, collective schedules, the buffered-send buffer. Every
// call that reads or changes that state holds it (progress::Lock); at lower
// thread levels taking it is a predictable branch and no atomic. Waiting
// threads share the engine so:
//   - Polling: any waiting thread polls with the lock held, and lets go of
//     it between passes while another thread wants it.
//   - Sleeping: one waiting thread at a time, the kernel sleeper, arms the
//     transports (with the lock held: arming reads transport state) and
//     sleeps in epoll_wait without the lock. The others park on a condition
//     variable of the engine lock.
//   - Waking: anything that may end somebody's wait happens with the lock
//     held and is announced before the lock is let go: a request's
//     completion (complete(), base/request.h) or a poll that found events.
//     The announcement wakes parked threads (notify_all) and the kernel
//     sleeper (an eventfd in its epoll set). A kernel sleeper that wakes up
//     hands its role back and wakes the parked threads, so that one of them
//     sleeps in the kernel if it still must wait: while anyone is parked,
//     someone sleeps in the kernel or polls.
#pragma once

#include <atomic>
#include <mutex>

#include "progress/source.h"

namespace ferry::progress {

enum class WaitPolicy { kSpin, kBlock, kSpinThenBlock };

// Sources are polled in the order they were added (the cheapest first:
// shared memory before TCP), then the running tasks.
void add_source(Source* source);
void remove_all_sources();
void set_wait_policy(WaitPolicy policy, int spin_us, int sleep_ms);
WaitPolicy wait_policy();

// One pass over all sources, then the tasks; returns the number of events. Call with the
// engine lock held.
int poll();

// True under MPI_THREAD_MULTIPLE, or once a thread of Ferry's own drives
// progress: the engine lock is taken.
extern bool threads_enabled;
// Turns the engine lock on for the rest of the run, at any thread level:
// before Ferry starts a thread of its own that calls into the engine (a
// file's nonblocking collective thread, io/nonblocking_collective.h). The
// calling thread must hold no Lock (a Lock made before keeps not locking),
// which an MPI call's entry satisfies; no other thread is inside the
// library then below MPI_THREAD_MULTIPLE, so the flag changes under nobody.
void enable_locking();
std::mutex& engine_mutex();

// The lock is re-entrant per thread in effect: a thread that already holds
// it (MPI_Sendrecv's send, a collective schedule starting its next round
// from inside poll()) takes it again as a no-op. This counts the Locks of
// this thread that are alive; the engine lock is held while it is nonzero.
// Initial-exec: a read is one %fs-relative load, where the shared library's
// default model called __tls_get_addr on every Lock (55 of an 8-byte
// Send+Recv pair's 1373 instructions under MPI_THREAD_MULTIPLE). It takes 4
// bytes of the static TLS that glibc keeps for libraries loaded later, as
// the profile's counting_thread does (profile/counters.h), so a dlopen'ed
// libmpi (mpi4py) still loads.
extern thread_local int lock_depth __attribute__((tls_model("initial-exec")));

// Threads blocked on the engine lock (only counted when they had to wait):
// a polling thread lets go of the lock between passes while this is nonzero.
extern std::atomic<int> contenders;

// Set (with the lock held) while a thread sleeps in the kernel or is parked:
// something that may end a wait must then be announced (note_event).
extern bool someone_waits;
// An announcement is due when the lock is next let go.
extern bool announce_pending;
// Wakes the kernel sleeper and the parked threads (lock held).
void announce();

// Something happened that may end another thread's wait (a request
// completed, a message arrived). Cheap: a flag, acted on when the lock is
// let go.
inline void note_event() {
  if (someone_waits) announce_pending = true;
}

// Holds the engine lock while it lives (threads enabled). A wait lets go of
// it with unlock() and takes it back with relock(): that lets go of the
// thread's hold entirely, outer Locks included, because a wait nested in
// another call (the send of MPI_Sendrecv, its receive posted) must not keep
// other threads out while it waits: their progress may be what it waits for.
class Lock {
 public:
  Lock() : active_(threads_enabled) {
    if (active_ && lock_depth++ == 0) acquire();
  }
  ~Lock() {
    if (active_ && --lock_depth == 0) release();
  }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
  void unlock() {
    if (!active_ || lock_depth == 0) return;
    saved_depth_ = lock_depth;
    lock_depth = 0;
    release();
  }
  void relock() {
    if (!active_ || lock_depth != 0) return;
    acquire();
    lock_depth = saved_depth_;
  }

 private:
  static void acquire() {
    if (!engine_mutex().try_lock()) {
      contenders.fetch_add(1, std::memory_order_relaxed);
      engine_mutex().lock();
      contenders.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  static void release() {
    if (announce_pending) announce();
    engine_mutex().unlock();
  }

  bool active_;
  int saved_depth_ = 0;
};

// Waits for events: sleeps in the kernel until a source has work, or
// `timeout_ms` passes, or (threads) another thread announces an event.
// Called with the engine lock held (`lock`); returns with it held.
void sleep_for_events(Lock& lock, int timeout_ms);

// Gives the core to another runnable thread, if any (sched_yield).
void yield_core();

// Microseconds since an arbitrary start, from the monotonic clock (vDSO).
long long now_us();
int spin_us();

// A peer copies `bytes` straight out of this process's memory (the
// single-copy rendezvous: it reads a send's buffer, p2p/engine.cc), so
// this rank's waits may end only when that copy does. Until the copy could
// have ended at the slowest rate we plan for, kPeerCopyBytesPerUs, a wait
// that would sleep after FERRY_SPIN_US (or FERRY_YIELD_US) without an
// event keeps polling (yielding, where ranks outnumber cores) instead: the
// wake-up cost this VM hundreds of microseconds on top of the copy
// (2-rank MPI_Sendrecv of 4 MiB, which a 200 us spin left asleep: 808-1024
// us, against 488-523 with a longer spin). Only copies that outlast the
// spin set a deadline (a clock read per such send), the latest one wins,
// and end_peer_copies drops it once no offered send is unanswered (the
// engine counts them), so other waits sleep again. At most
// kPeerCopySpinMaxUs ahead: a receiver that comes late to a copy of about
// 40 MB or more must not cost seconds of polling, and a wake-up is small
// beside such a copy. Every wait reads the deadline at each of its clock
// reads, so an offer made by another thread, or its end, counts at once;
// a thread already asleep in the kernel stays asleep.
constexpr size_t kPeerCopyBytesPerUs = 4096;  // 4 GB/s: a page per microsecond
constexpr long long kPeerCopySpinMaxUs = 10000;
inline std::atomic<long long> peer_copy_until{0};
void expect_peer_copy(size_t bytes);
inline void end_peer_copies() { peer_copy_until.store(0, std::memory_order_relaxed); }

// Empty passes between two reads of the clock while spinning: a poll that
// finds nothing costs a few cache reads, and the clock (vDSO, slower still
// in a VM) would cost more than the poll itself.
constexpr unsigned kPassesPerClockRead = 64;

// How long one sleep lasts at most (FERRY_SLEEP_MS). Nothing is lost if a
// sleep ends early; the bound only limits what a missed wake-up could cost.
int sleep_ms();

// What a wait runs between its checks: by default poll(), the full pass.
struct FullPass {
  static constexpr bool kFull = true;
  int operator()() const { return poll(); }
};

// A pass that is not full: `partial` (one peer's poll, say), and every
// kFullEvery-th time the full pass instead, so that nothing else waits on
// the caller for long (wait_with): that peer may first need another
// source's progress, or a task's (a rendezvous of ours to a third rank, a
// nonblocking collective's schedule).
template <typename Partial>
struct PartialPass {
  static constexpr bool kFull = false;
  static constexpr unsigned kFullEvery = 16;
  Partial partial;
  unsigned passes = 0;
  int operator()() {
    if (++passes % kFullEvery == 0) [[unlikely]] return poll();
    return partial();
  }
};

// Drives progress until done() holds, running `pass` between checks (it
// returns events, as poll() does). done() is evaluated with the engine
// lock held (the caller must hold `lock`). A pass that is not full
// (Pass::kFull false: it polls one peer, say) must run poll() itself
// regularly, so that every other source and task still moves while this
// call waits (a peer's progress may need them); the wait also runs poll()
// before it sleeps, so that it never sleeps on work only a full pass sees.
template <typename Done, typename Pass>
void wait_with(Lock& lock, Done done, Pass pass) {
  if (done()) return;
  WaitPolicy policy = wait_policy();
  // The clock is first read after the first idle passes (most waits on a
  // peer that is busy too end before that).
  long long spin_until = 0;
  bool moved = true;  // events since the clock was last read (or a fresh wait)
  unsigned idle_passes = 0;
  for (;;) {
    int events = pass();
    if (done()) return;
    // Another thread wants the engine (to start an operation, or to poll
    // for its own): let it in between passes.
    if (threads_enabled && contenders.load(std::memory_order_relaxed) > 0) {
      lock.unlock();
      yield_core();
      lock.relock();
      if (done()) return;
    }
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
    if (now < spin_until || now < peer_copy_until.load(std::memory_order_relaxed)) {
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
    if constexpr (!Pass::kFull) {
      int found = poll();
      if (done()) return;
      if (found > 0) {
        moved = true;
        continue;
      }
    }
    sleep_for_events(lock, sleep_ms());
  }
}

// The same with the full pass (nearly every wait).
template <typename Done>
void wait_until(Lock& lock, Done done) {
  wait_with(lock, done, FullPass{});
}

}  // namespace ferry::progress
