/*
 * MPI_THREAD_MULTIPLE (MPI-3.1 §12.4): several threads of each rank
 * communicate at the same time. Thread t of every rank exchanges a stream of
 * messages of mixed sizes with the same thread of its neighbours, on its own
 * tag, with blocking and nonblocking calls; matching must keep each thread's
 * messages apart and in order. Also: a thread blocked in MPI_Recv on a
 * message from its own rank is woken by another thread's send, and
 * MPI_Is_thread_main / MPI_Query_thread answer per thread.
 */
#define TEST_NAME "thread_multiple"
#include "mpitest.h"

#include <pthread.h>

#define NTHREADS 3
#define ITERS 60
#define TAG_BASE 10
#define TAG_SELF 50
#define MAX_BYTES (200 * 1024 + ITERS)

static int rank, size, left, right;

static size_t msg_bytes(int it) { return it % 10 == 3 ? 200 * 1024 + (size_t)it : (size_t)(it * 7 % 300); }

static uint32_t msg_seed(int src, int thread, int it) {
  return mt_seed((uint32_t)src, (uint32_t)thread, (uint32_t)it);
}

static void *exchange(void *arg) {
  const int t = (int)(intptr_t)arg, tag = TAG_BASE + t;
  int is_main = -1;
  MPI_Is_thread_main(&is_main);
  CHECK(is_main == (t == NTHREADS), "thread %d: MPI_Is_thread_main says %d", t, is_main);

  unsigned char *sbuf = mt_malloc(MAX_BYTES), *rbuf = mt_malloc(MAX_BYTES);
  for (int it = 0; it < ITERS; it++) {
    const size_t n = msg_bytes(it);
    mt_fill(sbuf, n, msg_seed(rank, t, it));
    MPI_Status st;
    switch (it % 3) {
    case 0: /* both nonblocking */
    {
      MPI_Request reqs[2];
      MPI_Irecv(rbuf, (int)MAX_BYTES, MPI_BYTE, left, tag, MPI_COMM_WORLD, &reqs[0]);
      MPI_Isend(sbuf, (int)n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &reqs[1]);
      MPI_Status sts[2];
      MPI_Waitall(2, reqs, sts);
      st = sts[0];
      break;
    }
    case 1: /* blocking receive with a wildcard source, nonblocking send */
    {
      MPI_Request req;
      MPI_Isend(sbuf, (int)n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req);
      MPI_Recv(rbuf, (int)MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      break;
    }
    default:
      MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, right, tag, rbuf, (int)MAX_BYTES, MPI_BYTE, left, tag,
                   MPI_COMM_WORLD, &st);
    }
    char what[64];
    snprintf(what, sizeof what, "thread %d, message %d", t, it);
    CHECK_STATUS(st, left, tag, MPI_BYTE, (int)n, what);
    CHECK_PATTERN(rbuf, n, msg_seed(left, t, it), "%s", what);
  }
  free(sbuf);
  free(rbuf);
  return NULL;
}

/* One thread blocks in MPI_Recv from its own rank; another sends later. */
static void *blocked_receiver(void *arg) {
  int *got = arg;
  MPI_Recv(got, 4, MPI_INT, rank, TAG_SELF, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return NULL;
}

static void check_wakeup_by_other_thread(void) {
  int got[4] = {0, 0, 0, 0}, val[4] = {rank, 11, 22, 33};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, blocked_receiver, got) == 0, "pthread_create failed");
  /* No sleeping: whether the receiver is already blocked or not, the send
   * must reach it; when it is (the likely case) only its thread can progress. */
  MPI_Send(val, 4, MPI_INT, rank, TAG_SELF, MPI_COMM_WORLD);
  pthread_join(th, NULL);
  CHECK(memcmp(got, val, sizeof val) == 0, "thread blocked in MPI_Recv from its own rank got %d %d %d %d",
        got[0], got[1], got[2], got[3]);
}

int main(int argc, char **argv) {
  int provided = -1, queried = -1, is_main = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided level %d, MPI_THREAD_MULTIPLE is %d",
        provided, MPI_THREAD_MULTIPLE);
  MPI_Query_thread(&queried);
  CHECK(queried == provided, "MPI_Query_thread gives %d, MPI_Init_thread provided %d", queried,
        provided);
  MPI_Is_thread_main(&is_main);
  CHECK(is_main, "MPI_Is_thread_main is false in the thread that called MPI_Init_thread");

  pthread_t threads[NTHREADS];
  for (int t = 0; t < NTHREADS; t++)
    CHECK(pthread_create(&threads[t], NULL, exchange, (void *)(intptr_t)t) == 0,
          "pthread_create failed");
  /* The main thread takes part too, as thread NTHREADS. */
  exchange((void *)(intptr_t)NTHREADS);
  for (int t = 0; t < NTHREADS; t++) pthread_join(threads[t], NULL);

  check_wakeup_by_other_thread();

  mt_pass();
  MPI_Finalize();
  return 0;
}
