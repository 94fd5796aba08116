#include "profile/clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace ferry::profile::clock {

bool use_tsc = false;

double calibrate() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  // CPUID 0x80000007, EDX bit 8: invariant TSC (Intel SDM vol. 3 §17.17.1, AMD APM vol. 3 App. E).
  if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8))) {
    // 5 ms against CLOCK_MONOTONIC: a rate good to about 1e-4, paid once per profiled rank.
    uint64_t t0 = monotonic_ns(), c0 = __rdtsc(), t1;
    do t1 = monotonic_ns();
    while (t1 - t0 < 5000000);
    uint64_t c1 = __rdtsc();
    use_tsc = true;
    return double(c1 - c0) * 1e9 / double(t1 - t0);
  }
#endif
  return 1e9;
}

}  // namespace ferry::profile::clock
