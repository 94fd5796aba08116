/*
 * MPI_Comm_free with operations still pending (MPI-3.1 §6.4.3): the handle
 * is gone at once, but pending receives and sends complete normally, and
 * persistent requests made on the communicator still work until freed. A
 * communicator created meanwhile never receives the freed one's traffic.
 */
#define TEST_NAME "comm_free_pending"
#include "mpitest.h"

#define BIG (1 << 20) /* rendezvous-sized */

static int rank, size;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    mt_pass();
    MPI_Finalize();
    return 0;
  }

  for (int round = 0; round < 5; round++) {
    MPI_Comm old, fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &old);
    unsigned char *big = mt_malloc(BIG);
    int small = -1, fresh_value = -1;
    MPI_Request reqs[2];
    MPI_Request persistent = MPI_REQUEST_NULL;

    if (rank == 1) {
      /* Receives posted, then the communicator freed before anything came. */
      MPI_Irecv(&small, 1, MPI_INT, 0, 1, old, &reqs[0]);
      MPI_Irecv(big, BIG, MPI_BYTE, MPI_ANY_SOURCE, 2, old, &reqs[1]);
      MPI_Comm_free(&old);
      CHECK(old == MPI_COMM_NULL, "handle not MPI_COMM_NULL after free");
    } else if (rank == 0) {
      MPI_Send_init(&round, 1, MPI_INT, 1, 1, old, &persistent);
      MPI_Comm_free(&old); /* the persistent request keeps working */
    } else {
      MPI_Comm_free(&old);
    }

    /* A new communicator now: it must not be handed the old one's traffic
     * while that is still pending. */
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      int v = 500 + round;
      MPI_Send(&v, 1, MPI_INT, 1, 1, fresh); /* same tag as the old receive */
      MPI_Start(&persistent);
      MPI_Wait(&persistent, MPI_STATUS_IGNORE);
      mt_fill(big, BIG, mt_seed(0, 2, (uint32_t)round));
      MPI_Send(big, BIG, MPI_BYTE, 1, 2, MPI_COMM_WORLD); /* not the old one: must wait */
      MPI_Request_free(&persistent);
    } else if (rank == 1) {
      MPI_Recv(&fresh_value, 1, MPI_INT, 0, 1, fresh, MPI_STATUS_IGNORE);
      CHECK(fresh_value == 500 + round, "round %d: the new communicator got %d", round, fresh_value);
      MPI_Status st;
      MPI_Wait(&reqs[0], &st);
      CHECK(small == round && st.MPI_SOURCE == 0, "round %d: the freed communicator's receive got %d from %d",
            round, small, st.MPI_SOURCE);
      /* The big message went on the world: the old receive stays pending. */
      int flag = 1;
      unsigned char *world_big = mt_malloc(BIG);
      MPI_Recv(world_big, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK_PATTERN(world_big, BIG, mt_seed(0, 2, (uint32_t)round), "round %d: world message", round);
      MPI_Test(&reqs[1], &flag, MPI_STATUS_IGNORE);
      CHECK(!flag, "round %d: a receive on the freed communicator took a world message", round);
      MPI_Cancel(&reqs[1]);
      MPI_Wait(&reqs[1], &st);
      int cancelled = 0;
      MPI_Test_cancelled(&st, &cancelled);
      CHECK(cancelled, "round %d: the pending receive could not be cancelled", round);
      free(world_big);
    }
    MPI_Comm_free(&fresh);
    free(big);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
