// Milliseconds on the monotonic clock, for the timings FERRY_DEBUG=launch
// prints (start-up cost is one of mpirun's promises).
#pragma once

#include <time.h>

namespace ferry::launcher {

inline double monotonic_ms() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

}  // namespace ferry::launcher
