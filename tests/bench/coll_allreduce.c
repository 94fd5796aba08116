/*
 * coll_allreduce: time per MPI_Allreduce over a range of message sizes.
 * Standard MPI only, so the same program measures Ferry and other MPIs.
 *
 *   mpirun -n 4 coll_allreduce [--min BYTES] [--max BYTES] [--iters N]
 *                              [--time SECONDS] [--check]
 *                              [--collective allreduce|reduce|reduce_scatter_block|scan]
 *
 * --collective times another reduction instead (default allreduce); BYTES
 * is always the vector one rank contributes (reduce: to root 0;
 * reduce_scatter_block: recvcount = count / ranks). --check applies to
 * allreduce only.
 *
 * Sizes double from --min to --max (defaults 8 B and 4 MiB), in doubles
 * summed with MPI_SUM. Each size runs 3 warm-up calls, then as many calls
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
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long parse_size(const char *text) {
  char *end = NULL;
  double v = strtod(text, &end);
  if (end != NULL && (*end == 'k' || *end == 'K')) v *= 1024;
  if (end != NULL && (*end == 'm' || *end == 'M')) v *= 1024 * 1024;
  return (long)v;
}

enum Collective { kAllreduce, kReduce, kReduceScatterBlock, kScan };

static void run(enum Collective c, const double *in, double *out, int count, int size) {
  switch (c) {
    case kAllreduce: MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case kReduce: MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case kReduceScatterBlock:
      MPI_Reduce_scatter_block(in, out, count / size, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case kScan: MPI_Scan(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
  }
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  long min_bytes = 8, max_bytes = 4L << 20;
  int max_iters = 1000, check = 0;
  const char *collective = "allreduce";
  double max_time = 0.25;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--min") && i + 1 < argc) min_bytes = parse_size(argv[++i]);
    else if (!strcmp(argv[i], "--max") && i + 1 < argc) max_bytes = parse_size(argv[++i]);
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) max_iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--time") && i + 1 < argc) max_time = atof(argv[++i]);
    else if (!strcmp(argv[i], "--check")) check = 1;
    else if (!strcmp(argv[i], "--collective") && i + 1 < argc) collective = argv[++i];
    else {
      if (rank == 0)
        fprintf(stderr,
                "usage: %s [--min BYTES] [--max BYTES] [--iters N] [--time S] [--check] "
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
  if (min_bytes < 8) min_bytes = 8;
  long max_count = max_bytes / 8;
  double *in = malloc(sizeof(double) * (size_t)(max_count > 0 ? max_count : 1));
  double *out = malloc(sizeof(double) * (size_t)(max_count > 0 ? max_count : 1));
  double *times = malloc(sizeof(double) * (size_t)(max_iters > 3 ? max_iters : 3));
  for (long i = 0; i < max_count; i++) in[i] = (double)(rank + 1) + (double)(i % 1000) * 0.5;

  if (rank == 0) {
    printf("# coll_allreduce: MPI_%s of MPI_DOUBLE with MPI_SUM on %d ranks\n",
           which == kAllreduce ? "Allreduce" : which == kReduce ? "Reduce"
           : which == kReduceScatterBlock ? "Reduce_scatter_block" : "Scan", size);
    printf("# %10s %10s %8s %12s %12s %12s %12s\n", "bytes", "count", "iters", "avg_us", "median_us", "min_us",
           "max_us");
  }
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    int count = (int)(bytes / 8);
    /* Warm up, and size the run from the warm-up calls' time: every rank
     * makes the same number of calls, back to back. */
    double warm = MPI_Wtime();
    for (int w = 0; w < 3; w++) run(which, in, out, count, size);
    warm = (MPI_Wtime() - warm) / 3;
    int iters = warm > 0 ? (int)(max_time / warm) : max_iters;
    if (iters > max_iters) iters = max_iters;
    if (iters < 3) iters = 3;
    MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double total = 0, fastest = 1e30, slowest = 0;
    for (int it = 0; it < iters; it++) {
      double t0 = MPI_Wtime();
      run(which, in, out, count, size);
      double t = MPI_Wtime() - t0;
      times[it] = t;
      total += t;
      if (t < fastest) fastest = t;
      if (t > slowest) slowest = t;
    }
    qsort(times, (size_t)iters, sizeof(double), compare_doubles);
    double median = times[iters / 2], median_max = 0;
    MPI_Reduce(&median, &median_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double avg = total / iters, avg_max = 0, fastest_all = 0, slowest_all = 0;
    MPI_Reduce(&avg, &avg_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&fastest, &fastest_all, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&slowest, &slowest_all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (check) {
      for (long i = 0; i < count; i++) {
        double want = (double)size * (size + 1) / 2 + (double)size * (double)(i % 1000) * 0.5;
        if (out[i] != want) {
          fprintf(stderr, "coll_allreduce: rank %d: FAILED: %ld bytes: element %ld is %g, expected %g\n", rank, bytes,
                  i, out[i], want);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
      }
    }
    if (rank == 0)
      printf("  %10ld %10d %8d %12.2f %12.2f %12.2f %12.2f\n", bytes, count, iters, avg_max * 1e6, median_max * 1e6,
             fastest_all * 1e6, slowest_all * 1e6);
    fflush(stdout);
  }
  free(in);
  free(out);
  free(times);
  MPI_Finalize();
  return 0;
}
