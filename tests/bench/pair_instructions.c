/*
 * pair_instructions: the instructions of one blocking MPI_Send + MPI_Recv of 8 bytes to oneself,
 * counted by callgrind pair by pair: the load-independent figure for FERRY_PROFILE's cost per call
 * (docs/performance.md, "FERRY_PROFILE's cost on the latency rows"), where the VM has no hardware
 * counters for perf stat.
 *
 *   mpirun -n 1 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.%p \
 *       pair_instructions [warm pairs, 400000] [counted pairs, 40] [multiple]
 *   grep -h ^summary: cg.*.* | sort | uniq -c          (the most common count is the figure)
 *
 * "multiple": MPI_Init_thread(MPI_THREAD_MULTIPLE), still one thread (pingpong --thread-multiple).
 *
 * The warm pairs run uninstrumented (callgrind's slow instrumented calls would make FERRY_PROFILE
 * time every call: it times a function on every call while its calls average 5 us or more); then
 * each counted pair is one dump. The profile times one call in 256 at random, so a few pairs count
 * more: the most common count is the untimed path's. Built without valgrind's header, it runs the
 * pairs and counts nothing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind_marks.h"

static void pair(long* out, long* in, int rank) {
  MPI_Send(out, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD);
  MPI_Recv(in, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  int warm = argc > 1 ? atoi(argv[1]) : 400000, counted = argc > 2 ? atoi(argv[2]) : 40;
  long out = 42, in = 0;
  if (argc > 3 && strcmp(argv[3], "multiple") == 0) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < warm; i++) pair(&out, &in, rank);
  CALLGRIND_START_INSTRUMENTATION;
  // 1000 pairs instrumented but not counted: callgrind translates the code on its first runs.
  for (int i = 0; i < 1000; i++) pair(&out, &in, rank);
  for (int i = 0; i < counted; i++) {
    CALLGRIND_ZERO_STATS;
    pair(&out, &in, rank);
    CALLGRIND_DUMP_STATS_AT("pair");
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  if (in != out) {
    printf("pair_instructions: FAILED: received %ld\n", in);
    return 1;
  }
  MPI_Finalize();
  return 0;
}
