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

// The accumulate lock is striped by target address: stripe i guards the
// bytes whose address (in the target's own address space, the same for
// every origin and for the target's service) lies in a kStripeBytes block
// numbered i modulo kStripes. Accumulates touching different blocks run
// side by side, and a large accumulate holds one stripe at a time, so two
// origins summing into one large array follow each other block by block
// instead of one waiting for the other's whole operation.
constexpr unsigned kStripeShift = 18;  // 256 KiB blocks: two atomics per 256 KiB of a large accumulate
constexpr uint64_t kStripeBytes = uint64_t{1} << kStripeShift;
constexpr unsigned kStripes = 64;      // a set of stripes is one 64-bit mask
using StripeMask = uint64_t;

inline unsigned stripe_of(uint64_t address) { return static_cast<unsigned>(address >> kStripeShift) % kStripes; }
// The stripes that guard [address, address + bytes), bytes > 0.
inline StripeMask stripes_of(uint64_t address, uint64_t bytes) {
  uint64_t first = address >> kStripeShift, last = (address + bytes - 1) >> kStripeShift;
  if (last - first >= kStripes - 1) return ~StripeMask{0};
  StripeMask m = 0;
  for (uint64_t b = first; b <= last; ++b) m |= StripeMask{1} << (b % kStripes);
  return m;
}

struct alignas(64) Slot {
  std::atomic<uint64_t> lock{0};        // passive-target lock word
  char pad[64 - sizeof(std::atomic<uint64_t>)];
  // Reader-writer locks of accumulates on this rank's memory, one per
  // stripe, on cache lines of their own (the lock word above is the hot
  // one of MPI_Win_lock).
  std::atomic<uint32_t> stripes[kStripes];
};
static_assert(sizeof(Slot) % 64 == 0, "whole cache lines per rank: no false sharing between targets");

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

// Each stripe of the accumulate lock, held for one operation's piece, is
// a reader-writer word.
// Updates of a few elements with CPU atomics hold it shared (they exclude
// each other element by element); an update of many elements in one pass
// of the reduction kernel, or one made without CPU atomics, holds it
// exclusive (rma/apply.cc). Bit 31: held exclusive; bit 30: a writer waits,
// and new readers stay out, so a stream of small updates cannot starve a
// large one; the low bits count readers. A writer that gets the lock clears
// bit 30 and another waiting writer sets it again at its next try. Writers
// come first: small updates wait while large ones from several origins
// follow each other without a gap, each of them one piece long.
//
// A set of stripes is always taken in ascending stripe order, by one
// holder that holds no other stripe: no two holders can wait for each
// other in a cycle.
constexpr uint32_t kAccumulateWriter = 1u << 31;
constexpr uint32_t kAccumulateWaiting = 1u << 30;

inline bool try_lock_accumulate_shared(std::atomic<uint32_t>& word) {
  uint32_t v = word.load(std::memory_order_relaxed);
  while ((v & (kAccumulateWriter | kAccumulateWaiting)) == 0)
    if (word.compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed)) return true;
  return false;
}
// All spin (rma/control.cc).
void lock_accumulate(Slot& s, StripeMask stripes);
void lock_accumulate_shared(Slot& s, StripeMask stripes);
void unlock_accumulate(Slot& s, StripeMask stripes);
void unlock_accumulate_shared(Slot& s, StripeMask stripes);
// One stripe taken shared, inline for the single-element calls
// (rma/direct.h); spins out of line.
void lock_accumulate_shared_slow(std::atomic<uint32_t>& word);
inline void lock_stripe_shared(Slot& s, unsigned stripe) {
  if (!try_lock_accumulate_shared(s.stripes[stripe])) lock_accumulate_shared_slow(s.stripes[stripe]);
}
inline void unlock_stripe_shared(Slot& s, unsigned stripe) {
  s.stripes[stripe].fetch_sub(1, std::memory_order_release);
}

}  // namespace ferry::rma
