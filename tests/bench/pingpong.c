/*
 * pingpong: point-to-point latency between ranks 0 and 1, reported as half
 * the round trip of an MPI_Send/MPI_Recv ping-pong. Standard MPI only, so
 * the same program measures Ferry and other MPIs. Other ranks idle.
 *
 *   mpirun -n 2 pingpong [--min BYTES] [--max BYTES] [--iters N] [--time S]
 *                        [--thread-multiple]
 *
 * --thread-multiple starts MPI with MPI_Init_thread(MPI_THREAD_MULTIPLE) and
 * still uses one thread: what thread safety costs a program that asks for it.
 *
 * Sizes: 0, then doubling from max(--min, 1) to --max (defaults 0 B and
 * 4 MiB). Each size runs 10 warm-up round trips, then as many as fit in
 * --time seconds (default 0.25 s) at the warm-up pace, at most --iters
 * (default 10000), at least 3.
 *
 * Output: '#' header lines, then one line per size:
 *   size_bytes latency_us        (average half round trip)
 */
#include "bench_common.h"

static void round_trip(int rank, char *buf, int bytes) {
  if (rank == 0) {
    MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  struct bench_args args = {0, 4L << 20, 10000, 0.25};
  int multiple = 0;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--thread-multiple")) multiple = 1;
  if (multiple) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "pingpong: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (bench_parse_arg(&args, argc, argv, &i) || !strcmp(argv[i], "--thread-multiple")) continue;
    if (rank == 0)
      fprintf(stderr, "usage: %s [--min BYTES] [--max BYTES] [--iters N] [--time S] [--thread-multiple]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "pingpong: needs 2 ranks, has %d\n", size);
    MPI_Finalize();
    return 2;
  }
  char *buf = calloc((size_t)(args.max_bytes > 0 ? args.max_bytes : 1), 1);
  if (rank == 0) {
    printf("# pingpong: MPI_Send/MPI_Recv between ranks 0 and 1, half round trip%s\n",
           multiple ? " (MPI_THREAD_MULTIPLE)" : "");
    printf("# %10s %12s\n", "size_bytes", "latency_us");
  }
  long bytes = args.min_bytes;
  while (bytes <= args.max_bytes) {
    double warm = MPI_Wtime();
    for (int w = 0; w < 10; w++) round_trip(rank, buf, (int)bytes);
    warm = (MPI_Wtime() - warm) / 10;
    int iters = bench_iterations(warm, &args, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) round_trip(rank, buf, (int)bytes);
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("  %10ld %12.3f\n", bytes, t / iters / 2 * 1e6);
    fflush(stdout);
    bytes = bytes == 0 ? 1 : bytes * 2;
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
