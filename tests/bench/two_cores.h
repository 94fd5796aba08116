/*
 * What the benches without MPI (cacheline_pingpong, cell_handoff) need to measure two processes on
 * two cores: pinning the calling process to one core, and a monotonic clock in nanoseconds. Each
 * names itself in `who` for the error line.
 */
#pragma once

#include <sched.h>
#include <stdio.h>
#include <time.h>

/* Pins the calling process to core `cpu`; says so on stderr if it cannot (it then runs unpinned). */
static inline void pin_to_core(const char *who, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    char what[96];
    snprintf(what, sizeof what, "%s: sched_setaffinity", who);
    perror(what);
  }
}

static inline double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
