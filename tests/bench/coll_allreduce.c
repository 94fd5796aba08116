/*
 * coll_allreduce: time per MPI_Allreduce over a range of message sizes.
 * Standard MPI only, so the same program measures Ferry and other MPIs.
 *
 *   mpirun -n 4 coll_allreduce [--min BYTES] [--max BYTES] [--iters N]
 *                              [--time SECONDS] [--check] [--float]
 *                              [--collective allreduce|reduce|reduce_scatter_block|scan]
 *
 * --collective times another reduction instead (default allreduce); BYTES
 * is always the vector one rank contributes (reduce: to root 0;
 * reduce_scatter_block: recvcount = count / ranks). --check applies to
 * allreduce only.
 *
 * Sizes double from --min to --max (defaults 8 B and 4 MiB), in doubles
 * (--float: floats) summed with MPI_SUM. Each size runs 3 warm-up calls, then as many calls
 * back to back as fit in --time seconds (default 0.25 s) at the warm-up
 * pace, at most --iters (default 1000), at least 3; rank 0 decides and
 * every rank makes the same calls. The time per call is each
 * rank's average; the table reports the slowest rank's average (what an
 * application waits for) and median (steadier on a busy or oversubscribed
 * host), and the fastest and slowest single call. --check
 * verifies the result of the last call.
 *
 * Output: one header line starting with '#', then one line per size:
 *   bytes count iterations avg_us median_us min_us max_us
 */
#include "bench_common.h"

enum Collective { kAllreduce, kReduce, kReduceScatterBlock, kScan };

static void run(enum Collective c, const void *in, void *out, int count, MPI_Datatype type, int size) {
  switch (c) {
    case kAllreduce: MPI_Allreduce(in, out, count, type, MPI_SUM, MPI_COMM_WORLD); break;
    case kReduce: MPI_Reduce(in, out, count, type, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case kReduceScatterBlock:
      MPI_Reduce_scatter_block(in, out, count / size, type, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kScan: MPI_Scan(in, out, count, type, MPI_SUM, MPI_COMM_WORLD); break;
  }
}

/* Element i of a float or double vector, as a double. */
static double element(const void *v, int is_float, long i) {
  return is_float ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

int main(int argc, char **argv) {
  struct bench_args args = {8, 4L << 20, 1000, 0.25};
  int check = 0, is_float = 0;
  const char *collective = "allreduce";
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (bench_parse_arg(&args, argc, argv, &i)) continue;
    if (!strcmp(argv[i], "--check")) check = 1;
    else if (!strcmp(argv[i], "--float")) is_float = 1;
    else if (!strcmp(argv[i], "--collective") && i + 1 < argc) collective = argv[++i];
    else {
      if (rank == 0)
        fprintf(stderr,
                "usage: %s [--min BYTES] [--max BYTES] [--iters N] [--time S] [--check] [--float] "
                "[--collective allreduce|reduce|reduce_scatter_block|scan]\n",
                argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  enum Collective which = kAllreduce;
  if (!strcmp(collective, "reduce")) which = kReduce;
  else if (!strcmp(collective, "reduce_scatter_block")) which = kReduceScatterBlock;
  else if (!strcmp(collective, "scan")) which = kScan;
  else if (strcmp(collective, "allreduce") != 0) {
    if (rank == 0) fprintf(stderr, "coll_allreduce: unknown --collective %s\n", collective);
    MPI_Finalize();
    return 2;
  }
  if (which != kAllreduce) check = 0;
  MPI_Datatype type = is_float ? MPI_FLOAT : MPI_DOUBLE;
  long elem = is_float ? 4 : 8;
  if (args.min_bytes < elem) args.min_bytes = elem;
  long max_count = args.max_bytes / elem;
  void *in = malloc((size_t)elem * (size_t)(max_count > 0 ? max_count : 1));
  void *out = malloc((size_t)elem * (size_t)(max_count > 0 ? max_count : 1));
  double *times = bench_times_alloc(&args);
  /* Small halves: every partial sum is exact in a float too. */
  for (long i = 0; i < max_count; i++) {
    double v = (double)(rank + 1) + (double)(i % 1000) * 0.5;
    if (is_float) ((float *)in)[i] = (float)v;
    else ((double *)in)[i] = v;
  }

  if (rank == 0) {
    printf("# coll_allreduce: MPI_%s of %s with MPI_SUM on %d ranks\n",
           which == kAllreduce ? "Allreduce" : which == kReduce ? "Reduce"
           : which == kReduceScatterBlock ? "Reduce_scatter_block" : "Scan",
           is_float ? "MPI_FLOAT" : "MPI_DOUBLE", size);
    printf("# %10s %10s %8s %12s %12s %12s %12s\n", "bytes", "count", "iters", "avg_us", "median_us", "min_us",
           "max_us");
  }
  for (long bytes = args.min_bytes; bytes <= args.max_bytes; bytes *= 2) {
    int count = (int)(bytes / elem);
    /* Warm up, and size the run from the warm-up calls' time: every rank
     * makes the same number of calls, back to back. */
    double warm = MPI_Wtime();
    for (int w = 0; w < 3; w++) run(which, in, out, count, type, size);
    warm = (MPI_Wtime() - warm) / 3;
    int iters = bench_iterations(warm, &args, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < iters; it++) {
      double t0 = MPI_Wtime();
      run(which, in, out, count, type, size);
      double t = MPI_Wtime() - t0;
      times[it] = t;
    }
    struct bench_stats st = bench_summarize(times, iters, MPI_COMM_WORLD);
    if (check) {
      for (long i = 0; i < count; i++) {
        double want = (double)size * (size + 1) / 2 + (double)size * (double)(i % 1000) * 0.5;
        if (element(out, is_float, i) != want) {
          fprintf(stderr, "coll_allreduce: rank %d: FAILED: %ld bytes: element %ld is %g, expected %g\n", rank, bytes,
                  i, element(out, is_float, i), want);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
      }
    }
    if (rank == 0)
      printf("  %10ld %10d %8d %12.2f %12.2f %12.2f %12.2f\n", bytes, count, iters, st.avg * 1e6, st.median * 1e6,
             st.min * 1e6, st.max * 1e6);
    fflush(stdout);
  }
  free(in);
  free(out);
  free(times);
  MPI_Finalize();
  return 0;
}
