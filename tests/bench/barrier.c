/*
 * barrier: time per MPI_Barrier on MPI_COMM_WORLD. Standard MPI only.
 *
 *   mpirun -n 2 barrier [--iters N] [--time S]
 *
 * Runs 10 warm-up barriers, then as many back to back as fit in --time
 * seconds (default 0.5 s), at most --iters (default 100000), at least 3.
 *
 * Output: '#' header lines, then one line:
 *   ranks avg_us median_us min_us max_us   (slowest rank's average and median)
 */
#include "bench_common.h"

int main(int argc, char **argv) {
  struct bench_args args = {0, 0, 100000, 0.5};
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (bench_parse_arg(&args, argc, argv, &i)) continue;
    if (rank == 0) fprintf(stderr, "usage: %s [--iters N] [--time S]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  double *times = bench_times_alloc(&args);
  double warm = MPI_Wtime();
  for (int w = 0; w < 10; w++) MPI_Barrier(MPI_COMM_WORLD);
  warm = (MPI_Wtime() - warm) / 10;
  int iters = bench_iterations(warm, &args, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < iters; it++) {
    double t0 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    times[it] = MPI_Wtime() - t0;
  }
  struct bench_stats st = bench_summarize(times, iters, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("# barrier: MPI_Barrier on %d ranks, %d calls\n", size, iters);
    printf("# %8s %12s %12s %12s %12s\n", "ranks", "avg_us", "median_us", "min_us", "max_us");
    printf("  %8d %12.3f %12.3f %12.3f %12.3f\n", size, st.avg * 1e6, st.median * 1e6, st.min * 1e6, st.max * 1e6);
  }
  free(times);
  MPI_Finalize();
  return 0;
}
