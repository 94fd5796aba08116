/*
 * msgrate: how many small messages per second ranks 0 and 1 move, from one
 * thread or several. Standard MPI only, so the same program measures Ferry
 * and other MPIs.
 *
 *   mpirun -n 2 msgrate [--threads T] [--thread-multiple] [--bytes B]
 *                       [--window W] [--time S]
 *
 * Thread t of rank 0 sends windows of W (default 64) nonblocking messages of
 * B bytes (default 8) to thread t of rank 1, which posts W nonblocking
 * receives for each window and answers with an empty message once the
 * window has arrived (OSU's osu_mbw_mr pattern, one pair per thread). The
 * rate is every thread's messages over the time of the slowest one, in
 * millions per second. T > 1 needs MPI_THREAD_MULTIPLE (implied);
 * --thread-multiple asks for it with T = 1 too, so that the cost of thread
 * safety alone shows. Each thread uses its own tag on one communicator.
 *
 * Output: '#' header lines, then one line:
 *   threads bytes window  mmsgs_per_s
 */
#include <pthread.h>

#include "bench_common.h"

static int rank, threads = 1, bytes = 8, window = 64;
static double max_time = 0.5;
static long windows;  /* per thread, decided by rank 0 from a warm-up */

/* One window each way; returns nothing, moves window + 1 messages. */
static void one_window(int t, char *buf, MPI_Request *reqs) {
  if (rank == 0) {
    for (int i = 0; i < window; i++) MPI_Isend(buf + (size_t)i * bytes, bytes, MPI_BYTE, 1, t, MPI_COMM_WORLD, &reqs[i]);
    MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    for (int i = 0; i < window; i++) MPI_Irecv(buf + (size_t)i * bytes, bytes, MPI_BYTE, 0, t, MPI_COMM_WORLD, &reqs[i]);
    MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
    MPI_Send(NULL, 0, MPI_BYTE, 0, t, MPI_COMM_WORLD);
  }
}

static double elapsed[64];

static void *run(void *arg) {
  int t = (int)(long)arg;
  char *buf = calloc((size_t)window, (size_t)(bytes > 0 ? bytes : 1));
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)window);
  for (int w = 0; w < 10; w++) one_window(t, buf, reqs);  /* warm-up */
  double t0 = MPI_Wtime();
  for (long w = 0; w < windows; w++) one_window(t, buf, reqs);
  elapsed[t] = MPI_Wtime() - t0;
  free(buf);
  free(reqs);
  return NULL;
}

int main(int argc, char **argv) {
  int multiple = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--thread-multiple")) multiple = 1;
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--bytes") && i + 1 < argc) bytes = (int)bench_parse_size(argv[++i]);
    else if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--time") && i + 1 < argc) max_time = atof(argv[++i]);
    else {
      fprintf(stderr,
              "usage: %s [--threads T] [--thread-multiple] [--bytes B] [--window W] [--time S]\n", argv[0]);
      return 2;
    }
  }
  if (threads < 1 || threads > 64 || window < 1) {
    fprintf(stderr, "msgrate: --threads must be 1-64 and --window positive\n");
    return 2;
  }
  if (threads > 1) multiple = 1;
  if (multiple) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "msgrate: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "msgrate: needs 2 ranks, has %d\n", size);
    MPI_Finalize();
    return 2;
  }
  /* Size the run from a single-thread warm-up, so that it takes about
   * max_time; rank 0 decides for everyone. */
  {
    char *buf = calloc((size_t)window, (size_t)(bytes > 0 ? bytes : 1));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)window);
    for (int w = 0; w < 10; w++) one_window(0, buf, reqs);
    double t0 = MPI_Wtime();
    for (int w = 0; w < 50; w++) one_window(0, buf, reqs);
    double per_window = (MPI_Wtime() - t0) / 50;
    windows = per_window > 0 ? (long)(max_time / per_window / threads) : 1000;
    if (windows < 20) windows = 20;
    MPI_Bcast(&windows, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    free(buf);
    free(reqs);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  pthread_t tids[64];
  if (rank <= 1) {
    for (int t = 1; t < threads; t++) pthread_create(&tids[t], NULL, run, (void *)(long)t);
    run((void *)0L);
    for (int t = 1; t < threads; t++) pthread_join(tids[t], NULL);
  }
  double slowest = 0;
  for (int t = 0; t < threads; t++)
    if (elapsed[t] > slowest) slowest = elapsed[t];
  double all = 0;
  MPI_Reduce(&slowest, &all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("# msgrate: %d thread(s) per rank%s, windows of %d messages of %d bytes, rank 0 -> rank 1\n", threads,
           multiple ? " (MPI_THREAD_MULTIPLE)" : "", window, bytes);
    printf("# %8s %6s %7s %12s\n", "threads", "bytes", "window", "mmsgs_per_s");
    printf("  %8d %6d %7d %12.3f\n", threads, bytes, window, (double)threads * windows * window / all / 1e6);
  }
  MPI_Finalize();
  return 0;
}
