/*
 * self_sendrecv: what a blocking MPI_Send + MPI_Recv of 8 bytes to oneself costs in CPU time, the
 * proxy for FERRY_PROFILE's per-call overhead (docs/performance.md, "FERRY_PROFILE's overhead"):
 * one process, rounds of 200,000 pairs timed with CLOCK_THREAD_CPUTIME_ID, which a loaded machine's
 * other work does not move the way it moves wall-clock ping-pong times; keeps the fastest round.
 *
 *   mpirun -n 1 self_sendrecv [rounds]      (default 40; pin it, e.g. taskset -c 1)
 *
 * Output: '#' header lines, then ns per MPI_Send + MPI_Recv pair.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  enum { pairs = 200000 };
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  long out = 42, in = 0;
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double best = 1e30;
  for (int r = 0; r < rounds; r++) {
    double t0 = cpu_seconds();
    for (int i = 0; i < pairs; i++) {
      MPI_Send(&out, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD);
      MPI_Recv(&in, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double t = cpu_seconds() - t0;
    if (t < best) best = t;
  }
  if (in != out) {
    printf("self_sendrecv: FAILED: received %ld\n", in);
    return 1;
  }
  printf("# self_sendrecv: MPI_Send + MPI_Recv of 8 B to self, CPU time, fastest of %d rounds of %d pairs\n# ns_per_pair\n%.2f\n",
         rounds, (int)pairs, best / pairs * 1e9);
  MPI_Finalize();
  return 0;
}
