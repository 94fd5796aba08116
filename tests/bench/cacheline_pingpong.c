/*
 * cacheline_pingpong: the hardware floor under any shared-memory MPI
 * latency. Two processes on two cores bounce a counter through two cache
 * lines of shared memory (one written by each side), with no MPI at all;
 * half a round trip is the time one core takes to see a line another core
 * wrote. An MPI's 8-byte latency can approach this figure, never beat it.
 *
 *   cacheline_pingpong [--iters N] [--cpus A,B]      (defaults 2000000, 0,1)
 *
 * Output: '#' header lines, then one line:  half_round_trip_ns
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "two_cores.h"

struct lines {
  _Alignas(64) atomic_long ping; /* written by the parent */
  _Alignas(64) atomic_long pong; /* written by the child */
};

int main(int argc, char **argv) {
  long iters = 2000000;
  int cpu_a = 0, cpu_b = 1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
      iters = atol(argv[++i]);
    } else if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc && sscanf(argv[++i], "%d,%d", &cpu_a, &cpu_b) == 2) {
    } else {
      fprintf(stderr, "usage: %s [--iters N] [--cpus A,B]\n", argv[0]);
      return 2;
    }
  }
  struct lines *l = mmap(NULL, sizeof *l, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (l == MAP_FAILED) {
    perror("cacheline_pingpong: mmap");
    return 1;
  }
  pid_t child = fork();
  if (child < 0) {
    perror("cacheline_pingpong: fork");
    return 1;
  }
  if (child == 0) {
    pin_to_core("cacheline_pingpong", cpu_b);
    for (long i = 1; i <= iters; i++) {
      while (atomic_load_explicit(&l->ping, memory_order_acquire) != i) {
      }
      atomic_store_explicit(&l->pong, i, memory_order_release);
    }
    _exit(0);
  }
  pin_to_core("cacheline_pingpong", cpu_a);
  double start = now_ns();
  for (long i = 1; i <= iters; i++) {
    atomic_store_explicit(&l->ping, i, memory_order_release);
    while (atomic_load_explicit(&l->pong, memory_order_acquire) != i) {
    }
  }
  double elapsed = now_ns() - start;
  waitpid(child, NULL, 0);
  printf("# cacheline_pingpong: cpus %d and %d, %ld round trips\n", cpu_a, cpu_b, iters);
  printf("# half_round_trip_ns\n");
  printf("  %.1f\n", elapsed / (double)iters / 2);
  return 0;
}
