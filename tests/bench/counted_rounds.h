/*
 * The frame of the benches that count the instructions of one round of calls at a time under
 * callgrind (pair_instructions, nonblocking_instructions: each says how to run it). The warm rounds
 * run uninstrumented (callgrind's slow instrumented calls would make FERRY_PROFILE time every call:
 * it times a function on every call while its calls average 5 us or more); then each counted round
 * is one dump. The profile times one call in 256 at random, so a few rounds count more: the most
 * common count is the untimed path's. Built without valgrind's header, a bench runs the rounds and
 * counts nothing.
 */
#pragma once

#include <mpi.h>
#include <stdlib.h>

#include "callgrind_marks.h"

struct rounds { int warm, counted; };

/* The rounds asked for on the command line ([warm, 400000] [counted, 40]), read before MPI may
 * change argv; then MPI_Init, or with `multiple` MPI_Init_thread(MPI_THREAD_MULTIPLE), still one
 * thread (as pingpong --thread-multiple). */
static struct rounds start_mpi(int* argc, char*** argv, int multiple) {
  struct rounds rounds = {*argc > 1 ? atoi((*argv)[1]) : 400000, *argc > 2 ? atoi((*argv)[2]) : 40};
  if (multiple) {
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(argc, argv);
  }
  return rounds;
}

/* Runs the call `round` `rounds.warm` times uninstrumented, 1000 times instrumented but not counted
 * (callgrind translates the code on its first runs), then `rounds.counted` times, each one dump named
 * `what`. A macro, so that a counted round is the bench's own call on its own locals, compiled as
 * when each bench wrote this loop out (the figures stay comparable with earlier ones). */
#define COUNT_ROUNDS(rounds, round, what)                             \
  do {                                                                \
    for (int warm_ = 0; warm_ < (rounds).warm; warm_++) round;        \
    CALLGRIND_START_INSTRUMENTATION;                                  \
    for (int first_ = 0; first_ < 1000; first_++) round;              \
    for (int counted_ = 0; counted_ < (rounds).counted; counted_++) { \
      CALLGRIND_ZERO_STATS;                                           \
      round;                                                          \
      CALLGRIND_DUMP_STATS_AT(what);                                  \
    }                                                                 \
    CALLGRIND_STOP_INSTRUMENTATION;                                   \
  } while (0)
