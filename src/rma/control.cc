#include "rma/control.h"

#include <sched.h>

namespace ferry::rma {

void lock_accumulate(Slot& s) {
  // Holders keep it for one operation and never wait for anything inside,
  // so spinning (yielding the core to a holder that shares it) ends soon.
  for (unsigned spins = 0; !try_lock_accumulate(s); ++spins) {
    if (spins < 64) __builtin_ia32_pause();
    else sched_yield();
  }
}

}  // namespace ferry::rma
