// The words that synchronize a window's ranks on one host, in one small
// shared-memory segment per host and window: for each rank of the window
// that lives on the host, its passive-target lock (MPI_Win_lock) and the
// lock that makes accumulates on its memory atomic (held shared by updates
// made with CPU atomics, exclusive by the others: rma/apply.h).
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
  std::atomic<uint32_t> accumulate{0};  // reader-writer lock of accumulates on this rank's memory
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

// The accumulate lock, held for one operation, is a reader-writer word.
// Updates of a few elements with CPU atomics hold it shared (they exclude
// each other element by element); an update of many elements in one pass
// of the reduction kernel, or one made without CPU atomics, holds it
// exclusive (rma/apply.cc). Bit 31: held exclusive; bit 30: a writer waits,
// and new readers stay out, so a stream of small updates cannot starve a
// large one; the low bits count readers. A writer that gets the lock clears
// bit 30 and another waiting writer sets it again at its next try. Writers
// come first: small updates wait while large ones from several origins
// follow each other without a gap, each of them one operation long.
constexpr uint32_t kAccumulateWriter = 1u << 31;
constexpr uint32_t kAccumulateWaiting = 1u << 30;

inline bool try_lock_accumulate_shared(Slot& s) {
  uint32_t v = s.accumulate.load(std::memory_order_relaxed);
  while ((v & (kAccumulateWriter | kAccumulateWaiting)) == 0)
    if (s.accumulate.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed))
      return true;
  return false;
}
// Both spin (rma/control.cc).
void lock_accumulate(Slot& s);
void lock_accumulate_shared(Slot& s);
inline void unlock_accumulate(Slot& s) {
  s.accumulate.fetch_and(~kAccumulateWriter, std::memory_order_release);
}
inline void unlock_accumulate_shared(Slot& s) { s.accumulate.fetch_sub(1, std::memory_order_release); }

}  // namespace ferry::rma
