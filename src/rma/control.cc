#include "rma/control.h"

#include <sched.h>

namespace ferry::rma {

namespace {

// Holders keep the lock for one operation and never wait for anything
// inside, so spinning (yielding the core to a holder that shares it) ends
// soon.
void back_off(unsigned spins) {
  if (spins < 64) __builtin_ia32_pause();
  else sched_yield();
}

}  // namespace

void lock_accumulate(Slot& s) {
  for (unsigned spins = 0;; ++spins) {
    uint32_t v = s.accumulate.load(std::memory_order_relaxed);
    // Free but for writers' waiting flag (ours or another's): take it; the
    // flag goes with the swap, and a writer still waiting sets it again.
    if ((v & ~kAccumulateWaiting) == 0) {
      if (s.accumulate.compare_exchange_weak(v, kAccumulateWriter, std::memory_order_acquire,
                                             std::memory_order_relaxed))
        return;
      continue;
    }
    if ((v & kAccumulateWaiting) == 0) s.accumulate.fetch_or(kAccumulateWaiting, std::memory_order_relaxed);
    back_off(spins);
  }
}

void lock_accumulate_shared(Slot& s) {
  for (unsigned spins = 0; !try_lock_accumulate_shared(s); ++spins) back_off(spins);
}

}  // namespace ferry::rma
