/*
 * coll_persistent: time per MPI_Allreduce_init'ed MPI_Start + MPI_Wait
 * (MPI-4.0 §6.13) against MPI_Iallreduce + MPI_Wait, doubles summed with
 * MPI_SUM. A persistent collective chooses its algorithm, builds its
 * schedule and allocates its scratch once, at init; the nonblocking call
 * does all of that at every call. Standard MPI-4.0 only.
 *
 *   mpirun -n 2 coll_persistent --mode persistent|nonblocking [--min BYTES] [--max BYTES]
 *                               [--iters N] [--time SECONDS]
 *
 * Sizes double from --min to --max (defaults 8 B and 64 KiB). Each size
 * runs 10 warm-up calls, then as many as fit in --time seconds (default
 * 0.25 s), at most --iters (default 20000). Output: one '#' header line,
 * then per size: bytes iterations avg_us median_us min_us max_us (the
 * slowest rank's average and median, the fastest and slowest single call).
 */
#include "bench_common.h"

int main(int argc, char **argv) {
  struct bench_args args = {8, 64 << 10, 20000, 0.25};
  int persistent = -1;
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 1; i < argc; i++) {
    if (bench_parse_arg(&args, argc, argv, &i)) continue;
    if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
      ++i;
      persistent = !strcmp(argv[i], "persistent") ? 1 : !strcmp(argv[i], "nonblocking") ? 0 : -1;
    } else {
      persistent = -1;
      break;
    }
  }
  if (persistent < 0) {
    if (rank == 0)
      fprintf(stderr, "usage: %s --mode persistent|nonblocking [--min B] [--max B] [--iters N] [--time S]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  double *times = bench_times_alloc(&args);
  if (rank == 0) printf("# %s: bytes iterations avg_us median_us min_us max_us\n", persistent ? "persistent" : "nonblocking");
  for (long bytes = args.min_bytes; bytes <= args.max_bytes; bytes *= 2) {
    int count = (int)(bytes / sizeof(double));
    double *in = calloc((size_t)count + 1, sizeof(double)), *out = calloc((size_t)count + 1, sizeof(double));
    MPI_Request req = MPI_REQUEST_NULL;
/* Ferry's mpi.h says MPI-3.1 but has the MPI-4.0 persistent collectives. */
#if MPI_VERSION >= 4 || defined(FERRY_MPI_H)
    if (persistent) MPI_Allreduce_init(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
#else
    /* An MPI before 4.0 has no persistent collectives: that figure fails. */
    if (persistent) MPI_Abort(MPI_COMM_WORLD, 3);
#endif
    /* One call, either way. */
#define ONE_CALL()                                                                  \
  do {                                                                              \
    if (persistent) MPI_Start(&req);                                                \
    else MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req); \
    MPI_Wait(&req, MPI_STATUS_IGNORE);                                              \
  } while (0)
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int w = 0; w < 10; w++) ONE_CALL();
    int iters = bench_iterations((MPI_Wtime() - t0) / 10, &args, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < iters; it++) {
      double t = MPI_Wtime();
      ONE_CALL();
      times[it] = MPI_Wtime() - t;
    }
    struct bench_stats s = bench_summarize(times, iters, MPI_COMM_WORLD);
    if (rank == 0)
      printf("%ld %d %.3f %.3f %.3f %.3f\n", bytes, iters, s.avg * 1e6, s.median * 1e6, s.min * 1e6, s.max * 1e6);
    if (persistent) MPI_Request_free(&req);
    free(in);
    free(out);
  }
  free(times);
  MPI_Finalize();
  return 0;
}
