/*
 * pingpong_fastest: the 8-byte latency of tests/bench/pingpong.c's loop (MPI_Send/MPI_Recv between
 * ranks 0 and 1, half a round trip), timed per batch of 1,000 round trips, keeping the fastest
 * batch: on a loaded machine preemptions cost batches, not the figure, where pingpong's mean over
 * its whole run moves several-fold (docs/performance.md, "FERRY_PROFILE's overhead with the direct
 * call").
 *
 *   mpirun -n 2 pingpong_fastest [batches] [--thread-multiple]     (default 300)
 *
 * --thread-multiple: MPI_Init_thread(MPI_THREAD_MULTIPLE), still one thread (as pingpong's).
 *
 * Output: '#' header lines, then the fastest batch's latency in us.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  enum { round_trips = 1000 };
  int batches = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 300, multiple = 0, rank, size;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--thread-multiple")) multiple = 1;
  long buf = 0;
  if (multiple) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) printf("pingpong_fastest: needs 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  double best = 1e30;
  for (int b = 0; b < batches; b++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < round_trips && rank < 2; i++) {
      if (rank == 0) {
        MPI_Send(&buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    double t = MPI_Wtime() - t0;
    if (t < best) best = t;
  }
  if (rank == 0)
    printf("# pingpong_fastest: 8 B, fastest of %d batches of %d round trips\n# latency_us\n%.4f\n", batches,
           (int)round_trips, best / round_trips / 2 * 1e6);
  MPI_Finalize();
  return 0;
}
