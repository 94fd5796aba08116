/*
 * coll_bcast: time per MPI_Bcast over a range of message sizes (and, with
 * --collective, per MPI_Allgather, MPI_Gather or MPI_Scatter). Standard MPI
 * only, so the same program measures Ferry and other MPIs; under Ferry,
 * FERRY_BCAST_ALGORITHM (...) picks the algorithm to compare.
 *
 *   mpirun -n 4 coll_bcast [--min BYTES] [--max BYTES] [--iters N]
 *                          [--time SECONDS] [--root R] [--back-to-back]
 *                          [--collective bcast|allgather|gather|scatter]
 *
 * BYTES is the message for bcast and one rank's block for the others.
 * Sizes double from --min to --max (defaults 1 B and 4 MiB). Each size
 * runs 3 warm-up calls, then as many calls back to back as fit in --time
 * seconds (default 0.25 s) at the warm-up pace, at most --iters (default
 * 1000), at least 3; rank 0 decides and every rank makes the same calls.
 * Each timed call starts after an (untimed) barrier, so that its time is
 * its latency: back to back, a root's eager sends would overlap the
 * previous call and a bcast would look as cheap as its root's part.
 * --back-to-back times calls back to back instead (throughput).
 * The table reports the slowest rank's average and median time per call,
 * and the fastest and slowest single call. The last call's data is checked.
 *
 * Output: one header line starting with '#', then one line per size:
 *   bytes iterations avg_us median_us min_us max_us
 */
#include "bench_common.h"

enum Collective { kBcast, kAllgather, kGather, kScatter };

static void run(enum Collective c, unsigned char *block, unsigned char *all, int bytes, int root) {
  switch (c) {
    case kBcast: MPI_Bcast(block, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case kAllgather: MPI_Allgather(block, bytes, MPI_BYTE, all, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    case kGather: MPI_Gather(block, bytes, MPI_BYTE, all, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case kScatter: MPI_Scatter(all, bytes, MPI_BYTE, block, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
  }
}

static unsigned char pattern(int rank, long i) { return (unsigned char)(rank * 31 + i * 7 + (i >> 8)); }

int main(int argc, char **argv) {
  struct bench_args args = {1, 4L << 20, 1000, 0.25};
  int root = 0;
  int back_to_back = 0;
  const char *collective = "bcast";
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (bench_parse_arg(&args, argc, argv, &i)) continue;
    if (!strcmp(argv[i], "--back-to-back")) back_to_back = 1;
    else if (!strcmp(argv[i], "--root") && i + 1 < argc) root = atoi(argv[++i]) % size;
    else if (!strcmp(argv[i], "--collective") && i + 1 < argc) collective = argv[++i];
    else {
      if (rank == 0)
        fprintf(stderr,
                "usage: %s [--min BYTES] [--max BYTES] [--iters N] [--time S] [--root R] [--back-to-back] "
                "[--collective bcast|allgather|gather|scatter]\n",
                argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  enum Collective which = kBcast;
  if (!strcmp(collective, "allgather")) which = kAllgather;
  else if (!strcmp(collective, "gather")) which = kGather;
  else if (!strcmp(collective, "scatter")) which = kScatter;
  else if (strcmp(collective, "bcast") != 0) {
    if (rank == 0) fprintf(stderr, "coll_bcast: unknown --collective %s\n", collective);
    MPI_Finalize();
    return 2;
  }
  if (args.min_bytes < 1) args.min_bytes = 1;
  unsigned char *block = malloc((size_t)args.max_bytes);
  unsigned char *all = malloc((size_t)args.max_bytes * (size_t)size);
  double *times = bench_times_alloc(&args);

  if (rank == 0) {
    printf("# coll_bcast: MPI_%s of MPI_BYTE on %d ranks, root %d\n",
           which == kBcast ? "Bcast" : which == kAllgather ? "Allgather" : which == kGather ? "Gather" : "Scatter",
           size, root);
    printf("# %10s %8s %12s %12s %12s %12s\n", "bytes", "iters", "avg_us", "median_us", "min_us", "max_us");
  }
  for (long bytes = args.min_bytes; bytes <= args.max_bytes; bytes *= 2) {
    /* The data: bcast sends the root's pattern, the others each rank's. */
    for (long i = 0; i < bytes; i++) block[i] = which == kBcast && rank != root ? 0 : pattern(rank, i);
    for (int r = 0; r < size; r++)
      for (long i = 0; i < bytes; i++) all[(size_t)r * (size_t)bytes + (size_t)i] = rank == root ? pattern(r, i) : 0;
    double warm = MPI_Wtime();
    for (int w = 0; w < 3; w++) run(which, block, all, (int)bytes, root);
    warm = (MPI_Wtime() - warm) / 3;
    int iters = bench_iterations(warm, &args, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < iters; it++) {
      if (!back_to_back) MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      run(which, block, all, (int)bytes, root);
      double t = MPI_Wtime() - t0;
      times[it] = t;
    }
    /* Check the last call. */
    for (long i = 0; i < bytes; i++) {
      int bad = 0;
      if (which == kBcast) bad = block[i] != pattern(root, i);
      else if (which == kScatter) bad = block[i] != pattern(rank, i);
      else if (which == kAllgather || rank == root)
        for (int r = 0; r < size && !bad; r++) bad = all[(size_t)r * (size_t)bytes + (size_t)i] != pattern(r, i);
      if (bad) {
        fprintf(stderr, "coll_bcast: rank %d: FAILED: %s of %ld bytes: wrong byte %ld\n", rank, collective, bytes, i);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    struct bench_stats st = bench_summarize(times, iters, MPI_COMM_WORLD);
    if (rank == 0)
      printf("  %10ld %8d %12.2f %12.2f %12.2f %12.2f\n", bytes, iters, st.avg * 1e6, st.median * 1e6,
             st.min * 1e6, st.max * 1e6);
    fflush(stdout);
  }
  free(block);
  free(all);
  free(times);
  MPI_Finalize();
  return 0;
}
