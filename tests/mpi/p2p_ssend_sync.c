/*
 * MPI-3.1 §3.4: a synchronous send completes only once the matching receive
 * has started. Each rank synchronously sends to its right neighbour, which
 * waits until the message is there (MPI_Iprobe sees it) but posts no
 * receive; it then tells the sender so on the same channel. A library that
 * acknowledges on arrival instead of on matching has sent that
 * acknowledgement before the notice, so by the time the sender holds the
 * notice its MPI_Test finds the send complete, and the test fails.
 * Only after every sender has checked do the receives get posted.
 *
 * Sizes from 0 B (where early completion is most tempting) to 4 MiB, for
 * MPI_Issend and for a persistent MPI_Ssend_init request. On one rank, the
 * rank is its own neighbour and the same reasoning holds.
 */
#define TEST_NAME "p2p_ssend_sync"
#include "mpitest.h"

#define TAG_DATA 1
#define TAG_SEEN 2
#define TAG_CHECKED 3

static const size_t sizes[] = {0, 1, 1000, 100 * 1024, 4 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int rank, size, left, right;

static void one_round(size_t n, int persistent) {
  const char *how = persistent ? "MPI_Ssend_init + MPI_Start" : "MPI_Issend";
  unsigned char *sbuf = mt_malloc(n), *rbuf = mt_malloc(n);
  const uint32_t sseed = mt_seed((uint32_t)rank, (uint32_t)n, (uint32_t)persistent);
  mt_fill(sbuf, n, sseed);

  MPI_Request sreq;
  if (persistent) {
    MPI_Ssend_init(sbuf, (int)n, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD, &sreq);
    MPI_Start(&sreq);
  } else {
    MPI_Issend(sbuf, (int)n, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD, &sreq);
  }

  /* The left neighbour's message is here (its envelope at least)... */
  MPI_Status st;
  mt_wait_probe(left, TAG_DATA, MPI_COMM_WORLD, &st, "waiting for the synchronous send");
  CHECK_STATUS(st, left, TAG_DATA, MPI_BYTE, (int)n, "MPI_Iprobe of a synchronous send");
  /* ...which we report to it; we hear the same from the right one. */
  MPI_Sendrecv(NULL, 0, MPI_BYTE, left, TAG_SEEN, NULL, 0, MPI_BYTE, right, TAG_SEEN,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  /* The right neighbour has our message but has posted no receive. */
  for (int i = 0; i < 20; i++) {
    int flag = 0;
    MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "%s of %zu B to rank %d completed before the receiver posted a receive",
          how, n, right);
    /* Another look at the left message drives progress between the tests. */
    MPI_Iprobe(left, TAG_DATA, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(flag, "the message from rank %d that MPI_Iprobe found has vanished", left);
  }

  /* Our checks are done; once the left one's are too, receive its message. */
  MPI_Sendrecv(NULL, 0, MPI_BYTE, right, TAG_CHECKED, NULL, 0, MPI_BYTE, left, TAG_CHECKED,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Request rreq;
  MPI_Irecv(rbuf, (int)n, MPI_BYTE, left, TAG_DATA, MPI_COMM_WORLD, &rreq);
  MPI_Wait(&rreq, &st);
  CHECK_STATUS(st, left, TAG_DATA, MPI_BYTE, (int)n, "receive of a synchronous send");
  CHECK_PATTERN(rbuf, n, mt_seed((uint32_t)left, (uint32_t)n, (uint32_t)persistent),
                "%s of %zu B from rank %d", how, n, left);
  /* Now that receives are posted, the send must complete. */
  mt_wait_test(&sreq, &st, "synchronous send after the receive was posted");
  if (persistent) MPI_Request_free(&sreq);
  free(sbuf);
  free(rbuf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;

  for (int persistent = 0; persistent < 2; persistent++)
    for (size_t k = 0; k < NSIZES; k++) one_round(sizes[k], persistent);

  mt_pass();
  MPI_Finalize();
  return 0;
}
