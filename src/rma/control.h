// The words that synchronize a window's ranks on one host, in one small
// shared-memory segment per host and window: for each rank of the window
// that lives on the host, its passive-target lock (MPI_Win_lock) and the
// lock that makes accumulates on its memory atomic where CPU atomics cannot
// (elements larger than 8 bytes, memory the origin reaches by cross-memory
// attach).
//
// The passive-target lock is a reader-writer word: bit 63 is the exclusive
// holder, the low bits count shared holders. An origin on the host takes it
// with one compare-and-swap, and a target that computes without calling MPI
// delays nobody (MPI-4.0 §12.5.3 asks only that lock eventually succeed;
// this makes it succeed at the speed of the cache line). Origins on other
// hosts take the same word through the target's service (a message), so
// both kinds of origin exclude each other.
#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::rma {

constexpr uint64_t kExclusive = uint64_t{1} << 63;

struct alignas(64) Slot {
  std::atomic<uint64_t> lock{0};        // passive-target lock word
  std::atomic<uint32_t> accumulate{0};  // spin lock of lock-based accumulates on this rank's memory
  char pad[64 - sizeof(std::atomic<uint64_t>) - sizeof(std::atomic<uint32_t>)];
};
static_assert(sizeof(Slot) == 64, "one cache line per rank: no false sharing between targets");

// One attempt each; true when the lock is now held.
inline bool try_lock_exclusive(Slot& s) {
  uint64_t expected = 0;
  return s.lock.compare_exchange_strong(expected, kExclusive, std::memory_order_acquire, std::memory_order_relaxed);
}
inline bool try_lock_shared(Slot& s) {
  uint64_t v = s.lock.load(std::memory_order_relaxed);
  while ((v & kExclusive) == 0)
    if (s.lock.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed)) return true;
  return false;
}
inline void unlock_exclusive(Slot& s) { s.lock.store(0, std::memory_order_release); }
inline void unlock_shared(Slot& s) { s.lock.fetch_sub(1, std::memory_order_release); }

// The accumulate lock: held for the few microseconds of one operation.
inline bool try_lock_accumulate(Slot& s) {
  uint32_t expected = 0;
  return s.accumulate.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed);
}
void lock_accumulate(Slot& s);  // spins (rma/control.cc)
inline void unlock_accumulate(Slot& s) { s.accumulate.store(0, std::memory_order_release); }

}  // namespace ferry::rma
