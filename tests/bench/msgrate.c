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
 * window has arrived (OSU's osu_mbw_mr pattern, one pair per thread). Each
 * sending thread goes on for --time seconds (default 0.5) and marks its
 * last window with tag 1, so the run lasts about that long however slow or
 * fast an MPI is with threads. The rate is every thread's messages over the
 * time of the slowest one, in millions per second. T > 1 needs
 * MPI_THREAD_MULTIPLE (implied); --thread-multiple asks for it with T = 1
 * too, so that the cost of thread safety alone shows. Each pair of threads
 * has a communicator of its own.
 *
 * Output: '#' header lines, then one line:
 *   threads bytes window  mmsgs_per_s
 */
#include <pthread.h>

#include "bench_common.h"

static int rank, threads = 1, bytes = 8, window = 64;
static double max_time = 0.5;
static MPI_Comm comms[64];
static double elapsed[64];
static long sent[64];

/* One window each way: window messages, then the receiver's empty answer.
 * Tag 1 on the sender's messages says it is the last window. Returns
 * whether more windows follow. */
static int one_window(MPI_Comm c, char *buf, MPI_Request *reqs, MPI_Status *sts, int last) {
  if (rank == 0) {
    for (int i = 0; i < window; i++) MPI_Isend(buf + (size_t)i * bytes, bytes, MPI_BYTE, 1, last, c, &reqs[i]);
    MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, c, MPI_STATUS_IGNORE);
    return !last;
  }
  for (int i = 0; i < window; i++) MPI_Irecv(buf + (size_t)i * bytes, bytes, MPI_BYTE, 0, MPI_ANY_TAG, c, &reqs[i]);
  MPI_Waitall(window, reqs, sts);
  MPI_Send(NULL, 0, MPI_BYTE, 0, 0, c);
  return sts[0].MPI_TAG == 0;
}

static void *run(void *arg) {
  int t = (int)(long)arg;
  char *buf = calloc((size_t)window, (size_t)(bytes > 0 ? bytes : 1));
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)window);
  MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)window);
  for (int w = 0; w < 10; w++) one_window(comms[t], buf, reqs, sts, 0);  /* warm-up */
  double t0 = MPI_Wtime();
  long windows = 0;
  int more = 1;
  while (more) {
    int last = rank == 0 && MPI_Wtime() - t0 >= max_time;
    more = one_window(comms[t], buf, reqs, sts, last);
    windows++;
  }
  elapsed[t] = MPI_Wtime() - t0;
  sent[t] = windows * window;
  free(buf);
  free(reqs);
  free(sts);
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
  for (int t = 0; t < threads; t++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  MPI_Barrier(MPI_COMM_WORLD);
  pthread_t tids[64];
  if (rank <= 1) {
    for (int t = 1; t < threads; t++) pthread_create(&tids[t], NULL, run, (void *)(long)t);
    run((void *)0L);
    for (int t = 1; t < threads; t++) pthread_join(tids[t], NULL);
  }
  double slowest = 0;
  long messages = 0;
  for (int t = 0; t < threads; t++) {
    if (elapsed[t] > slowest) slowest = elapsed[t];
    messages += sent[t];
  }
  double all = 0;
  MPI_Reduce(&slowest, &all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  for (int t = 0; t < threads; t++) MPI_Comm_free(&comms[t]);
  if (rank == 0) {
    printf("# msgrate: %d thread(s) per rank%s, windows of %d messages of %d bytes, rank 0 -> rank 1\n", threads,
           multiple ? " (MPI_THREAD_MULTIPLE)" : "", window, bytes);
    printf("# %8s %6s %7s %12s\n", "threads", "bytes", "window", "mmsgs_per_s");
    printf("  %8d %6d %7d %12.3f\n", threads, bytes, window, (double)messages / all / 1e6);
  }
  MPI_Finalize();
  return 0;
}
