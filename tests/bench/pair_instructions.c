/*
 * pair_instructions: the instructions of one blocking MPI_Send + MPI_Recv of 8 bytes to oneself,
 * counted by callgrind pair by pair: the load-independent figure for FERRY_PROFILE's cost per call
 * (docs/performance.md, "FERRY_PROFILE's cost on the latency rows"), where the VM has no hardware
 * counters for perf stat. Run and read as counted_rounds.h says:
 *
 *   mpirun -n 1 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.%p \
 *       pair_instructions [warm pairs, 400000] [counted pairs, 40] [multiple]
 *   grep -h ^summary: cg.*.* | sort | uniq -c          (the most common count is the figure)
 *
 * "multiple": MPI_Init_thread(MPI_THREAD_MULTIPLE), still one thread (pingpong --thread-multiple).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "counted_rounds.h"

static void pair(long* out, long* in, int rank) {
  MPI_Send(out, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD);
  MPI_Recv(in, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  long out = 42, in = 0;
  struct rounds rounds = start_mpi(&argc, &argv, argc > 3 && strcmp(argv[3], "multiple") == 0);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  COUNT_ROUNDS(rounds, pair(&out, &in, rank), "pair");
  if (in != out) {
    printf("pair_instructions: FAILED: received %ld\n", in);
    return 1;
  }
  MPI_Finalize();
  return 0;
}
