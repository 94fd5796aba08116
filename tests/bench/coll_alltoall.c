/*
 * coll_alltoall: time per MPI_Alltoall over a range of block sizes.
 * Standard MPI only, so the same program measures Ferry and other MPIs;
 * under Ferry, FERRY_ALLTOALL_ALGORITHM (pairwise, bruck) picks the
 * algorithm to compare.
 *
 *   mpirun -n 4 coll_alltoall [--min BYTES] [--max BYTES] [--iters N]
 *                             [--time SECONDS] [--back-to-back]
 *
 * BYTES is the block one rank sends to each rank. Sizes double from --min
 * to --max (defaults 1 B and 1 MiB). Each size runs 3 warm-up calls, then
 * as many calls back to back as fit in --time seconds (default 0.25 s) at
 * the warm-up pace, at most --iters (default 1000), at least 3; rank 0
 * decides and every rank makes the same calls. Each timed call starts
 * after an (untimed) barrier; --back-to-back times calls back to back
 * instead. The table reports the
 * slowest rank's average and median time per call, and the fastest and
 * slowest single call. The last call's data is checked.
 *
 * Output: one header line starting with '#', then one line per size:
 *   bytes iterations avg_us median_us min_us max_us
 */
#include "bench_common.h"

/* Byte i of the block from rank `from` to rank `to`. */
static unsigned char pattern(int from, int to, long i) { return (unsigned char)(from * 31 + to * 17 + i * 7); }

int main(int argc, char **argv) {
  struct bench_args args = {1, 1L << 20, 1000, 0.25};
  int back_to_back = 0;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (bench_parse_arg(&args, argc, argv, &i)) continue;
    if (!strcmp(argv[i], "--back-to-back")) back_to_back = 1;
    else {
      if (rank == 0)
        fprintf(stderr, "usage: %s [--min BYTES] [--max BYTES] [--iters N] [--time S] [--back-to-back]\n", argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  if (args.min_bytes < 1) args.min_bytes = 1;
  size_t total = (size_t)args.max_bytes * (size_t)size;
  unsigned char *send = malloc(total), *recv = malloc(total);
  double *times = bench_times_alloc(&args);

  if (rank == 0) {
    printf("# coll_alltoall: MPI_Alltoall of MPI_BYTE on %d ranks\n", size);
    printf("# %10s %8s %12s %12s %12s %12s\n", "bytes", "iters", "avg_us", "median_us", "min_us", "max_us");
  }
  for (long bytes = args.min_bytes; bytes <= args.max_bytes; bytes *= 2) {
    for (int j = 0; j < size; j++)
      for (long i = 0; i < bytes; i++) send[(size_t)j * (size_t)bytes + (size_t)i] = pattern(rank, j, i);
    double warm = MPI_Wtime();
    for (int w = 0; w < 3; w++) MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    warm = (MPI_Wtime() - warm) / 3;
    int iters = bench_iterations(warm, &args, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < iters; it++) {
      if (!back_to_back) MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
      double t = MPI_Wtime() - t0;
      times[it] = t;
    }
    for (int j = 0; j < size; j++)
      for (long i = 0; i < bytes; i++)
        if (recv[(size_t)j * (size_t)bytes + (size_t)i] != pattern(j, rank, i)) {
          fprintf(stderr, "coll_alltoall: rank %d: FAILED: %ld bytes: block from %d, byte %ld wrong\n", rank, bytes,
                  j, i);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
    struct bench_stats st = bench_summarize(times, iters, MPI_COMM_WORLD);
    if (rank == 0)
      printf("  %10ld %8d %12.2f %12.2f %12.2f %12.2f\n", bytes, iters, st.avg * 1e6, st.median * 1e6,
             st.min * 1e6, st.max * 1e6);
    fflush(stdout);
  }
  free(send);
  free(recv);
  free(times);
  MPI_Finalize();
  return 0;
}
