// The clock FERRY_PROFILE times calls with: the CPU's time-stamp counter where it is invariant
// (x86-64 with CPUID's "invariant TSC": constant rate, runs in every sleep state, the same on every
// core), which costs a fraction of clock_gettime; CLOCK_MONOTONIC elsewhere. Counters hold ticks;
// the rank's file says how many make a second (calibrated once at MPI_Init against
// CLOCK_MONOTONIC), and the launcher converts.
#pragma once

#include <cstdint>
#include <ctime>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace ferry::profile::clock {

extern bool use_tsc;  // decided by calibrate(); false until then

inline uint64_t monotonic_ns() {
  timespec t;
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

inline uint64_t ticks() {
#if defined(__x86_64__)
  // No fence: a call is timed to within the few cycles the CPU may reorder the read by.
  if (use_tsc) return __rdtsc();
#endif
  return monotonic_ns();
}

// Chooses the clock and answers its ticks per second. Called once, before the first tick is
// read (the profile tool's attachment), so every count is in one unit.
double calibrate();

}  // namespace ferry::profile::clock
