/*
 * rma: one-sided communication (MPI-4.0 chapter 12) between ranks 0 and 1,
 * one operation at a time, so the figure is what one call and its
 * completion cost. Standard MPI only, so the same program measures Ferry
 * and other MPIs. Other ranks (and the target, for passive target) wait in
 * MPI_Barrier, as a target that does not take part would.
 *
 *   mpirun -n 2 rma --op put|putall|get|fop|acc|fence|lock|lockput|memcpy [--win allocate|create]
 *                   [--min BYTES] [--max BYTES] [--iters N] [--time S]
 *
 * What one timed call is:
 *   put, get  MPI_Put / MPI_Get of BYTES bytes + MPI_Win_flush, inside one
 *             MPI_Win_lock(MPI_LOCK_SHARED) epoch on rank 1
 *   putall    MPI_Put of BYTES bytes + MPI_Win_flush_all, in the same epoch
 *   fop       MPI_Fetch_and_op(MPI_SUM) of one long + MPI_Win_flush (BYTES ignored)
 *   acc       MPI_Accumulate(MPI_SUM) of BYTES/8 doubles + MPI_Win_flush
 *   fence     rank 0 puts BYTES bytes to rank 1, then every rank calls
 *             MPI_Win_fence: one fence epoch (BYTES 0: the fence alone)
 *   lock      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1) + MPI_Win_unlock(1), empty
 *   lockput   the same around one MPI_Put of BYTES bytes: a whole epoch
 *   memcpy    no MPI: rank 0 copies BYTES between two of its own buffers
 *             (the floor under put's bandwidth on one host)
 * --win: the window's memory from MPI_Win_allocate (default) or from
 * MPI_Alloc_mem given to MPI_Win_create.
 *
 * Sizes double from --min to --max (defaults 8 B and 8 B). Each size runs 10
 * warm-up calls (and 100 more when they took under 10 us each), then as many as fit in --time seconds (default 0.25 s), at
 * most --iters (default 100000) samples, at least 3. A call shorter than a
 * microsecond is timed in batches of about 2 us (at most 256 calls), each
 * sample the batch's time over its calls, so that reading the clock twice
 * is not most of the figure.
 *
 * Output: one '#' header line, then per size:
 *   bytes iterations avg_us median_us min_us max_us GB/s
 * (times of rank 0's calls; for fence the slowest rank's average and
 * median; GB/s is bytes over the median time, 0 for fop and lock).
 */
#include "bench_common.h"

enum op { OP_PUT, OP_PUTALL, OP_GET, OP_FOP, OP_ACC, OP_FENCE, OP_LOCK, OP_LOCKPUT, OP_MEMCPY, OP_BAD };

static enum op parse_op(const char *s) {
  static const char *names[] = {"put", "putall", "get", "fop", "acc", "fence", "lock", "lockput", "memcpy"};
  for (int i = 0; i < OP_BAD; i++)
    if (!strcmp(s, names[i])) return (enum op)i;
  return OP_BAD;
}

/* One timed call of `op` by this rank. */
static void one_call(enum op op, int rank, MPI_Win win, char *src, char *dst, long bytes) {
  long one = 1, old = 0;
  switch (op) {
    case OP_PUT:
      MPI_Put(src, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
      MPI_Win_flush(1, win);
      break;
    case OP_PUTALL:
      MPI_Put(src, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
      MPI_Win_flush_all(win);
      break;
    case OP_GET:
      MPI_Get(dst, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
      MPI_Win_flush(1, win);
      break;
    case OP_FOP:
      MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, 0, MPI_SUM, win);
      MPI_Win_flush(1, win);
      break;
    case OP_ACC:
      MPI_Accumulate(src, (int)(bytes / 8), MPI_DOUBLE, 1, 0, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, win);
      MPI_Win_flush(1, win);
      break;
    case OP_FENCE:
      if (rank == 0 && bytes > 0) MPI_Put(src, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
      MPI_Win_fence(0, win);
      break;
    case OP_LOCK:
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
      MPI_Win_unlock(1, win);
      break;
    case OP_LOCKPUT:
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
      MPI_Put(src, (int)bytes, MPI_BYTE, 1, 0, (int)bytes, MPI_BYTE, win);
      MPI_Win_unlock(1, win);
      break;
    case OP_MEMCPY:
      memcpy(dst, src, (size_t)bytes);
      break;
    case OP_BAD: break;
  }
}

int main(int argc, char **argv) {
  struct bench_args args = {8, 8, 100000, 0.25};
  enum op op = OP_BAD;
  int create = 0, usage = 0;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (bench_parse_arg(&args, argc, argv, &i)) continue;
    if (!strcmp(argv[i], "--op") && i + 1 < argc) op = parse_op(argv[++i]);
    else if (!strcmp(argv[i], "--win") && i + 1 < argc) create = !strcmp(argv[++i], "create");
    else usage = 1;
  }
  if (op == OP_BAD || usage || size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -n 2 %s --op put|putall|get|fop|acc|fence|lock|lockput|memcpy "
              "[--win allocate|create] [--min B] [--max B] [--iters N] [--time S]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  long window_bytes = args.max_bytes > 8 ? args.max_bytes : 8;
  char *mem = NULL;
  MPI_Win win = MPI_WIN_NULL;
  if (create) {
    MPI_Alloc_mem(window_bytes, MPI_INFO_NULL, &mem);
    MPI_Win_create(mem, window_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  } else {
    MPI_Win_allocate(window_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  }
  memset(mem, 0, (size_t)window_bytes);
  /* Origin buffers, touched so that no page fault is timed. */
  char *src = malloc((size_t)window_bytes), *dst = malloc((size_t)window_bytes);
  for (long i = 0; i < window_bytes / 8; i++) ((double *)src)[i] = 1.0;
  memset(dst, 0, (size_t)window_bytes);
  double *times = bench_times_alloc(&args);
  /* Who calls: everyone for fence, rank 0 alone for the rest. */
  int collective = op == OP_FENCE;
  int timing = collective || rank == 0;
  MPI_Comm timed = collective ? MPI_COMM_WORLD : MPI_COMM_SELF;
  if (rank == 0)
    printf("# %s %s: bytes iterations avg_us median_us min_us max_us GB/s\n", argv[0], create ? "create" : "allocate");
  for (long bytes = args.min_bytes; bytes <= args.max_bytes; bytes = bytes > 0 ? bytes * 2 : 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (timing) {
      int passive = op == OP_PUT || op == OP_PUTALL || op == OP_GET || op == OP_FOP || op == OP_ACC;
      if (passive) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
      if (collective) MPI_Win_fence(0, win);
      double t0 = MPI_Wtime();
      for (int w = 0; w < 10; w++) one_call(op, rank, win, src, dst, bytes);
      double per_call = (MPI_Wtime() - t0) / 10;
      if (per_call < 1e-5) { /* warm now: measure again, on more calls */
        t0 = MPI_Wtime();
        for (int w = 0; w < 100; w++) one_call(op, rank, win, src, dst, bytes);
        per_call = (MPI_Wtime() - t0) / 100;
      }
      if (collective) MPI_Allreduce(MPI_IN_PLACE, &per_call, 1, MPI_DOUBLE, MPI_MAX, timed);
      /* Calls far shorter than reading the clock are timed in batches of
       * about 2 us, each sample the batch's time over its calls: otherwise
       * the figure is mostly the two MPI_Wtime calls around one call. */
      int batch = per_call > 0 && per_call < 1e-6 ? (int)(2e-6 / per_call) : 1;
      if (batch > 256) batch = 256;
      if (batch < 1) batch = 1;
      MPI_Bcast(&batch, 1, MPI_INT, 0, timed);
      int iters = bench_iterations(per_call * batch, &args, timed);
      if (collective) MPI_Barrier(MPI_COMM_WORLD);
      for (int it = 0; it < iters; it++) {
        double t = MPI_Wtime();
        for (int b = 0; b < batch; b++) one_call(op, rank, win, src, dst, bytes);
        times[it] = (MPI_Wtime() - t) / batch;
      }
      if (collective) MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
      if (passive) MPI_Win_unlock(1, win);
      struct bench_stats s = bench_summarize(times, iters, timed);
      double gbs = op == OP_FOP || op == OP_LOCK || s.median <= 0 ? 0 : (double)bytes / s.median / 1e9;
      if (rank == 0)
        printf("%ld %d %.3f %.3f %.3f %.3f %.3f\n", bytes, iters, s.avg * 1e6, s.median * 1e6, s.min * 1e6,
               s.max * 1e6, gbs);
    }
    /* The target (and any other rank) waits here while rank 0 works on it. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (bytes == 0 && args.max_bytes == 0) break;
  }
  free(times);
  free(src);
  free(dst);
  MPI_Win_free(&win);
  if (create) MPI_Free_mem(mem);
  MPI_Finalize();
  return 0;
}
