/*
 * MPI_THREAD_MULTIPLE partitioned communication, the way OpenMP programs use
 * it (MPI-4.0 §4.1's example): on the sender, THREADS threads each fill and
 * MPI_Pready their own partitions, concurrently on one request; on the
 * receiver, as many threads poll MPI_Parrived on their own partitions and
 * check each one's data as soon as it is reported, while the main thread
 * starts and completes the requests. Over many rounds with changing data.
 * ThreadSanitizer runs it (label "threads"): it must report nothing.
 */
#define TEST_NAME "part_threads"
#include "mpitest.h"

#include <pthread.h>

enum { THREADS = 4, PARTS = 32, COUNT = 512 };

static int rounds = 30;
static int *buf;
static MPI_Request req;
static int round_now;

static int value(int round, int partition, int i) { return round * 7919 + partition * 104729 + i; }

static void *ready_mine(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int p = t; p < PARTS; p += THREADS) {
    for (int i = 0; i < COUNT; i++) buf[p * COUNT + i] = value(round_now, p, i);
    CHECK_MPI(MPI_Pready(p, req));
  }
  return NULL;
}

static void *await_mine(void *arg) {
  int t = (int)(intptr_t)arg;
  double start = MPI_Wtime();
  for (int p = t; p < PARTS; p += THREADS) {
    int flag = 0;
    while (!flag) {
      CHECK_MPI(MPI_Parrived(req, p, &flag));
      CHECK(flag || MPI_Wtime() - start < MT_POLL_LIMIT_S, "round %d: partition %d never arrived", round_now, p);
    }
    for (int i = 0; i < COUNT; i++)
      CHECK(buf[p * COUNT + i] == value(round_now, p, i), "round %d: partition %d int %d is %d, expected %d",
            round_now, p, i, buf[p * COUNT + i], value(round_now, p, i));
  }
  return NULL;
}

static void run_threads(void *(*fn)(void *)) {
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++)
    CHECK(pthread_create(&threads[t], NULL, fn, (void *)(intptr_t)t) == 0, "pthread_create failed");
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
}

int main(int argc, char **argv) {
  int provided = -1, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--reps")) rounds = atoi(argv[i + 1]);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  buf = mt_malloc(sizeof(int) * PARTS * COUNT);
  int peer = rank ^ 1;
  if (peer < size) {
    int sending = rank % 2 == 0;
    if (sending) CHECK_MPI(MPI_Psend_init(buf, PARTS, COUNT, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    else CHECK_MPI(MPI_Precv_init(buf, PARTS, COUNT, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (round_now = 0; round_now < rounds; round_now++) {
      if (!sending) memset(buf, 0xff, sizeof(int) * PARTS * COUNT);
      CHECK_MPI(MPI_Start(&req));
      run_threads(sending ? ready_mine : await_mine);
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&req));
  }
  free(buf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
