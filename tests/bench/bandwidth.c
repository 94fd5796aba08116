/*
 * bandwidth: streaming point-to-point bandwidth from rank 0 to rank 1: a
 * window of MPI_Isend (matched by pre-posted MPI_Irecv), completed with
 * MPI_Waitall, then a zero-byte acknowledgement, repeated. With
 * --bidirectional both ranks stream to each other at once (bibw) and the
 * figure is the bytes moved in both directions. Standard MPI only.
 *
 *   mpirun -n 2 bandwidth [--min BYTES] [--max BYTES] [--iters N] [--time S]
 *                         [--window W] [--bidirectional]
 *
 * Sizes double from --min to --max (defaults 1 B and 4 MiB); --window
 * messages in flight (default 64). Both buffers are window * max bytes: a
 * DRAM-sized run is --min 64M --max 64M --window 4. Each size runs 2 warm-up windows, then
 * as many windows as fit in --time seconds (default 0.25 s), at most
 * --iters (default 1000), at least 3.
 *
 * Output: '#' header lines, then one line per size:
 *   size_bytes bandwidth_GBps     (1 GB = 1e9 bytes)
 */
#include "bench_common.h"

struct window {
  int rank, window, bidirectional;
  char *send, *recv; /* window * max_bytes each */
  MPI_Request *requests;
};

/* One window of `bytes`-byte messages, then an acknowledgement so the sender
 * cannot run ahead into the next window before the receiver has drained it. */
static void stream(const struct window *w, long bytes) {
  int peer = 1 - w->rank, n = 0;
  int sends = w->rank == 0 || w->bidirectional, recvs = w->rank == 1 || w->bidirectional;
  for (int k = 0; recvs && k < w->window; k++)
    MPI_Irecv(w->recv + (size_t)k * (size_t)bytes, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &w->requests[n++]);
  for (int k = 0; sends && k < w->window; k++)
    MPI_Isend(w->send + (size_t)k * (size_t)bytes, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &w->requests[n++]);
  MPI_Waitall(n, w->requests, MPI_STATUSES_IGNORE);
  if (w->rank == 1) MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
  else MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  struct bench_args args = {1, 4L << 20, 1000, 0.25};
  struct window w = {0, 64, 0, NULL, NULL, NULL};
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (bench_parse_arg(&args, argc, argv, &i)) continue;
    if (!strcmp(argv[i], "--bidirectional")) w.bidirectional = 1;
    else if (!strcmp(argv[i], "--window") && i + 1 < argc) w.window = atoi(argv[++i]);
    else {
      if (rank == 0)
        fprintf(stderr, "usage: %s [--min BYTES] [--max BYTES] [--iters N] [--time S] [--window W] [--bidirectional]\n",
                argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "bandwidth: needs 2 ranks, has %d\n", size);
    MPI_Finalize();
    return 2;
  }
  if (args.min_bytes < 1) args.min_bytes = 1;
  if (w.window < 1) w.window = 1;
  w.rank = rank;
  size_t buffer = (size_t)w.window * (size_t)args.max_bytes;
  w.send = malloc(buffer);
  w.recv = malloc(buffer);
  /* Written before use: untouched pages all map the kernel's one zero page,
   * which would make a large send buffer read from the cache. With them
   * real, --max 64M --window 4 streams from and to DRAM (256 MiB a side). */
  memset(w.send, 1, buffer);
  memset(w.recv, 0, buffer);
  w.requests = malloc(sizeof(MPI_Request) * 2 * (size_t)w.window);
  if (rank == 0) {
    printf("# bandwidth: %s, window of %d MPI_Isend between ranks 0 and 1\n",
           w.bidirectional ? "bidirectional" : "unidirectional", w.window);
    printf("# %10s %14s\n", "size_bytes", "bandwidth_GBps");
  }
  for (long bytes = args.min_bytes; bytes <= args.max_bytes; bytes *= 2) {
    if (rank < 2) {
      double warm = MPI_Wtime();
      for (int k = 0; k < 2; k++) stream(&w, bytes);
      warm = (MPI_Wtime() - warm) / 2;
      /* Rank 0 decides for both; idle ranks take no part. */
      int iters = warm > 0 ? (int)(args.max_time / warm) : args.max_iters;
      if (iters > args.max_iters) iters = args.max_iters;
      if (iters < 3) iters = 3;
      if (rank == 0) MPI_Send(&iters, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
      else MPI_Recv(&iters, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double t0 = MPI_Wtime();
      for (int it = 0; it < iters; it++) stream(&w, bytes);
      double t = MPI_Wtime() - t0;
      double moved = (double)bytes * w.window * iters * (w.bidirectional ? 2 : 1);
      if (rank == 0) printf("  %10ld %14.3f\n", bytes, moved / t / 1e9);
      fflush(stdout);
    }
  }
  free(w.send);
  free(w.recv);
  free(w.requests);
  MPI_Finalize();
  return 0;
}
