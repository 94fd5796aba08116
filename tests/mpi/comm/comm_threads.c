/*
 * Communicator construction from several threads at once under
 * MPI_THREAD_MULTIPLE (MPI-3.1 §12.4): each thread of every rank owns a
 * parent communicator (some over all ranks, some over halves, so the groups
 * overlap) and creates, uses and frees communicators from it in a loop:
 * MPI_Comm_dup, MPI_Comm_split, MPI_Comm_create_group, MPI_Comm_idup. The
 * context-id agreements of different threads run concurrently on
 * overlapping groups; none may deadlock, and no two live communicators may
 * share a context: every thread's messages use the same tag, so a collision
 * would deliver one thread's message to another.
 */
#define TEST_NAME "comm_threads"
#include "mpitest.h"

#include <pthread.h>

#define NTHREADS 4
#define ITERS 40
#define KEEP 3 /* communicators each thread keeps alive at a time */

static int rank, size;
static MPI_Comm parents[NTHREADS];

static void use(MPI_Comm c, int thread, int iter) {
  int r, n;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  /* The world rank of every member, in order, through a ring exchange of
   * (thread, iteration, world rank): same tag in every thread. */
  int out[3] = {thread, iter, rank}, in[3] = {-1, -1, -1};
  MPI_Sendrecv(out, 3, MPI_INT, (r + 1) % n, 0, in, 3, MPI_INT, (r + n - 1) % n, 0, c, MPI_STATUS_IGNORE);
  CHECK(in[0] == thread && in[1] == iter, "thread %d iteration %d: received (thread %d, iteration %d) from world "
        "rank %d: communicators of different threads share a context", thread, iter, in[0], in[1], in[2]);
  int sum = 0;
  MPI_Allreduce(&thread, &sum, 1, MPI_INT, MPI_SUM, c);
  CHECK(sum == thread * n, "thread %d iteration %d: allreduce gave %d, expected %d", thread, iter, sum, thread * n);
}

static void *worker(void *arg) {
  const int t = (int)(intptr_t)arg;
  MPI_Comm parent = parents[t];
  MPI_Comm held[KEEP];
  int nheld = 0;
  int prank;
  MPI_Comm_rank(parent, &prank);
  MPI_Group pgroup;
  MPI_Comm_group(parent, &pgroup);
  for (int it = 0; it < ITERS; it++) {
    MPI_Comm c = MPI_COMM_NULL;
    switch (it % 4) {
      case 0:
        MPI_Comm_dup(parent, &c);
        break;
      case 1:
        MPI_Comm_split(parent, 0, -prank, &c);
        break;
      case 2:
        MPI_Comm_create_group(parent, pgroup, 100 + t, &c);
        break;
      default: {
        MPI_Request r;
        MPI_Comm_idup(parent, &c, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
    }
    CHECK(c != MPI_COMM_NULL, "thread %d iteration %d: no communicator", t, it);
    use(c, t, it);
    if (nheld == KEEP) {
      use(held[0], t, it);
      MPI_Comm_free(&held[0]);
      memmove(&held[0], &held[1], sizeof(MPI_Comm) * (KEEP - 1));
      nheld--;
    }
    held[nheld++] = c;
  }
  for (int i = 0; i < nheld; i++) MPI_Comm_free(&held[i]);
  MPI_Group_free(&pgroup);
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("%s: SKIPPED (no MPI_THREAD_MULTIPLE)\n", TEST_NAME);
    MPI_Finalize();
    return 0;
  }
  /* Threads 0 and 2 work on all ranks, 1 and 3 on halves (even and odd
   * world ranks): every rank has threads on overlapping groups. */
  for (int t = 0; t < NTHREADS; t++) {
    if (t % 2 == 0) MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
    else MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parents[t]);
  }
  pthread_t threads[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t);
  for (int t = 0; t < NTHREADS; t++) pthread_join(threads[t], NULL);
  for (int t = 0; t < NTHREADS; t++) MPI_Comm_free(&parents[t]);
  mt_pass();
  MPI_Finalize();
  return 0;
}
