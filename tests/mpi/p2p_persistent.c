/*
 * Persistent requests (MPI-3.1 §3.9): MPI_Send_init, MPI_Ssend_init and
 * MPI_Recv_init started many times with MPI_Start and MPI_Startall. Each
 * start sends the buffer's current contents (refilled every iteration),
 * completion leaves the request allocated and inactive, MPI_Wait/MPI_Test
 * on an inactive request return at once with an empty status, and
 * MPI_Request_free releases it. Ring: send right, receive from left.
 */
#define TEST_NAME "p2p_persistent"
#include "mpitest.h"

#define ITERS 100
#define SMALL_INTS 16
#define LARGE_INTS (64 * 1024) /* 256 KiB: rendezvous on most transports */

static int rank, size, left, right;

static uint32_t iter_seed(int src, int which, int it) {
  return mt_seed((uint32_t)src, (uint32_t)which, (uint32_t)it);
}

/* which: 0 = MPI_Send_init, 1 = MPI_Ssend_init; small and large at once. */
static void ring_iterations(int which) {
  const char *name = which ? "MPI_Ssend_init" : "MPI_Send_init";
  int *ssmall = mt_malloc(sizeof(int) * SMALL_INTS), *rsmall = mt_malloc(sizeof(int) * SMALL_INTS);
  int *slarge = mt_malloc(sizeof(int) * LARGE_INTS), *rlarge = mt_malloc(sizeof(int) * LARGE_INTS);
  MPI_Request reqs[4]; /* recv small, recv large, send small, send large */
  MPI_Recv_init(rsmall, SMALL_INTS, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]);
  MPI_Recv_init(rlarge, LARGE_INTS, MPI_INT, left, 2, MPI_COMM_WORLD, &reqs[1]);
  if (which) {
    MPI_Ssend_init(ssmall, SMALL_INTS, MPI_INT, right, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Ssend_init(slarge, LARGE_INTS, MPI_INT, right, 2, MPI_COMM_WORLD, &reqs[3]);
  } else {
    MPI_Send_init(ssmall, SMALL_INTS, MPI_INT, right, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Send_init(slarge, LARGE_INTS, MPI_INT, right, 2, MPI_COMM_WORLD, &reqs[3]);
  }

  for (int it = 0; it < ITERS; it++) {
    /* The large message only every 4th time: a started request may sit
     * beside inactive ones in the same arrays. */
    const int with_large = it % 4 == 0;
    mt_fill(ssmall, sizeof(int) * SMALL_INTS, iter_seed(rank, 2 * which, it));
    if (with_large) mt_fill(slarge, sizeof(int) * LARGE_INTS, iter_seed(rank, 2 * which + 1, it));
    memset(rsmall, 0, sizeof(int) * SMALL_INTS);

    MPI_Status sts[4];
    if (with_large) {
      /* Receives first, so that a rank that is its own neighbour can Ssend. */
      MPI_Startall(4, reqs);
    } else if (it % 2) {
      MPI_Start(&reqs[0]);
      MPI_Start(&reqs[2]);
    } else {
      MPI_Request pair[2] = {reqs[0], reqs[2]};
      MPI_Startall(2, pair);
      CHECK(pair[0] == reqs[0] && pair[1] == reqs[2], "MPI_Startall changed the request handles");
    }
    MPI_Waitall(4, reqs, sts);
    for (int i = 0; i < 4; i++)
      CHECK(reqs[i] != MPI_REQUEST_NULL,
            "%s iteration %d: completion freed persistent request %d", name, it, i);

    char what[64];
    snprintf(what, sizeof what, "%s iteration %d, small", name, it);
    CHECK_STATUS(sts[0], left, 1, MPI_INT, SMALL_INTS, what);
    CHECK_PATTERN(rsmall, sizeof(int) * SMALL_INTS, iter_seed(left, 2 * which, it), "%s", what);
    if (with_large) {
      snprintf(what, sizeof what, "%s iteration %d, large", name, it);
      CHECK_STATUS(sts[1], left, 2, MPI_INT, LARGE_INTS, what);
      CHECK_PATTERN(rlarge, sizeof(int) * LARGE_INTS, iter_seed(left, 2 * which + 1, it), "%s",
                    what);
    } else {
      CHECK_EMPTY_STATUS(sts[1], "MPI_Waitall status of an inactive persistent receive");
    }
  }

  /* Inactive persistent requests: MPI_Wait and MPI_Test return at once. */
  MPI_Status st;
  int flag = 0;
  MPI_Wait(&reqs[0], &st);
  CHECK_EMPTY_STATUS(st, "MPI_Wait on an inactive persistent request");
  CHECK(reqs[0] != MPI_REQUEST_NULL, "MPI_Wait on an inactive persistent request freed it");
  MPI_Test(&reqs[3], &flag, &st);
  CHECK(flag, "MPI_Test on an inactive persistent request returned flag 0");
  CHECK_EMPTY_STATUS(st, "MPI_Test on an inactive persistent request");

  for (int i = 0; i < 4; i++) {
    MPI_Request_free(&reqs[i]);
    CHECK(reqs[i] == MPI_REQUEST_NULL, "MPI_Request_free did not set the handle to MPI_REQUEST_NULL");
  }
  free(ssmall);
  free(rsmall);
  free(slarge);
  free(rlarge);
}

static void proc_null_requests(void) {
  int buf = 4321;
  MPI_Request reqs[2];
  MPI_Status sts[2];
  MPI_Send_init(&buf, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &reqs[0]);
  MPI_Recv_init(&buf, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &reqs[1]);
  for (int it = 0; it < 3; it++) {
    MPI_Startall(2, reqs);
    MPI_Waitall(2, reqs, sts);
    CHECK_PROC_NULL_STATUS_NB(sts[1], "persistent receive from MPI_PROC_NULL");
    CHECK(buf == 4321, "persistent receive from MPI_PROC_NULL changed the buffer to %d", buf);
  }
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  ring_iterations(0);
  ring_iterations(1);
  proc_null_requests();

  mt_pass();
  MPI_Finalize();
  return 0;
}
