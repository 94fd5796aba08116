#include "rma/control.h"

#include <sched.h>

namespace ferry::rma {

namespace {

// Holders keep the lock for one operation's piece and never wait for
// anything inside, so spinning (yielding the core to a holder that shares
// it) ends soon.
void back_off(unsigned spins) {
  if (spins < 64) __builtin_ia32_pause();
  else sched_yield();
}

void lock_exclusive(std::atomic<uint32_t>& word) {
  for (unsigned spins = 0;; ++spins) {
    uint32_t v = word.load(std::memory_order_relaxed);
    // Free but for writers' waiting flag (ours or another's): take it; the
    // flag goes with the swap, and a writer still waiting sets it again.
    if ((v & ~kAccumulateWaiting) == 0) {
      if (word.compare_exchange_weak(v, kAccumulateWriter, std::memory_order_acquire, std::memory_order_relaxed))
        return;
      continue;
    }
    if ((v & kAccumulateWaiting) == 0) word.fetch_or(kAccumulateWaiting, std::memory_order_relaxed);
    back_off(spins);
  }
}

// Calls f(stripe) for each stripe of the mask, in ascending order.
template <typename F>
void each(StripeMask stripes, F f) {
  while (stripes != 0) {
    f(static_cast<unsigned>(__builtin_ctzll(stripes)));
    stripes &= stripes - 1;
  }
}

}  // namespace

void lock_accumulate_shared_slow(std::atomic<uint32_t>& word) {
  for (unsigned spins = 0; !try_lock_accumulate_shared(word); ++spins) back_off(spins);
}

void lock_accumulate(Slot& s, StripeMask stripes) {
  each(stripes, [&](unsigned i) { lock_exclusive(s.stripes[i]); });
}

void lock_accumulate_shared(Slot& s, StripeMask stripes) {
  each(stripes, [&](unsigned i) { lock_stripe_shared(s, i); });
}

void unlock_accumulate(Slot& s, StripeMask stripes) {
  each(stripes, [&](unsigned i) { s.stripes[i].fetch_and(~kAccumulateWriter, std::memory_order_release); });
}

void unlock_accumulate_shared(Slot& s, StripeMask stripes) {
  each(stripes, [&](unsigned i) { unlock_stripe_shared(s, i); });
}

}  // namespace ferry::rma
