/*
 * Partitioned communication's errors and corner cases under
 * MPI_ERRORS_RETURN: each bad call returns the right error class with a
 * message naming the call (and the library keeps working); requests that
 * are never started can be freed (MPICH's part/no_start); MPI_PROC_NULL
 * peers complete at once; a message larger than the receive buffer is
 * MPI_ERR_TRUNCATE on both sides; MPI_Request_get_status and MPI_Cancel
 * behave on partitioned requests; MPI_Request_free of an active request
 * lets its round finish.
 */
#define TEST_NAME "part_errors"
#include "mpitest.h"

static void bad_arguments(int rank, int size) {
  int buf[64] = {0};
  MPI_Request req = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL;
  int peer = (rank + 1) % size;
  mt_expect_error_saying(MPI_Psend_init(buf, -1, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req), MPI_ERR_ARG,
               "MPI_Psend_init", "partitions", "negative partitions");
  mt_expect_error_saying(MPI_Psend_init(buf, 4, -1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req), MPI_ERR_COUNT,
               "MPI_Psend_init", "count", "negative count");
  mt_expect_error_saying(MPI_Psend_init(buf, 4, 4, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req), MPI_ERR_RANK,
               "MPI_Psend_init", "rank", "dest = size");
  mt_expect_error_saying(MPI_Precv_init(buf, 4, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_RANK, "MPI_Precv_init", "source", "MPI_ANY_SOURCE");
  mt_expect_error_saying(MPI_Precv_init(buf, 4, 4, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_TAG, "MPI_Precv_init", NULL, "MPI_ANY_TAG");
  mt_expect_error_saying(MPI_Psend_init(buf, 4, 4, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req),
               MPI_ERR_TYPE, "MPI_Psend_init", NULL, "MPI_DATATYPE_NULL");
  mt_expect_error_saying(MPI_Psend_init(buf, 4, 4, MPI_INT, peer, 0, MPI_COMM_NULL, MPI_INFO_NULL, &req), MPI_ERR_COMM,
               "MPI_Psend_init", NULL, "MPI_COMM_NULL");

  /* A request that is started never: Pready says it is inactive. */
  CHECK_MPI(MPI_Psend_init(buf, 4, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  mt_expect_error_saying(MPI_Pready(0, req), MPI_ERR_REQUEST, "MPI_Pready", "not active", "Pready before MPI_Start");
  CHECK_MPI(MPI_Start(&req));
  mt_expect_error_saying(MPI_Pready(4, req), MPI_ERR_ARG, "MPI_Pready", "partition 4", "partition = partitions");
  mt_expect_error_saying(MPI_Pready(-1, req), MPI_ERR_ARG, "MPI_Pready", "partition -1", "partition = -1");
  mt_expect_error_saying(MPI_Pready_range(2, 1, req), MPI_ERR_ARG, "MPI_Pready_range", "partition_low", "low > high");
  mt_expect_error_saying(MPI_Pready_range(0, 9, req), MPI_ERR_ARG, "MPI_Pready_range", "partition_high 9", "high too big");
  int list[3] = {0, 7, 1};
  mt_expect_error_saying(MPI_Pready_list(3, list, req), MPI_ERR_ARG, "MPI_Pready_list", "array_of_partitions[1]",
               "list entry out of range");
  mt_expect_error_saying(MPI_Pready_list(2, NULL, req), MPI_ERR_ARG, "MPI_Pready_list", "array_of_partitions", "NULL list");
  CHECK_MPI(MPI_Pready(1, req));
  mt_expect_error_saying(MPI_Pready(1, req), MPI_ERR_ARG, "MPI_Pready", "already ready", "Pready twice");
  mt_expect_error_saying(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST, "MPI_Pready", NULL, "MPI_REQUEST_NULL");
  int flag = 0;
  mt_expect_error_saying(MPI_Parrived(req, 0, &flag), MPI_ERR_REQUEST, "MPI_Parrived", "receive", "Parrived on a send");
  CHECK_MPI(MPI_Pready_range(2, 3, req));
  CHECK_MPI(MPI_Pready(0, req));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL send: status source %d", st.MPI_SOURCE);

  /* Pready on a receive, Parrived out of range; MPI_PROC_NULL receive. */
  CHECK_MPI(MPI_Precv_init(buf, 4, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
  mt_expect_error_saying(MPI_Parrived(rreq, 0, &flag), MPI_ERR_REQUEST, "MPI_Parrived", "not active", "Parrived inactive");
  CHECK_MPI(MPI_Start(&rreq));
  mt_expect_error_saying(MPI_Pready(0, rreq), MPI_ERR_REQUEST, "MPI_Pready", "partitioned send", "Pready on a receive");
  mt_expect_error_saying(MPI_Parrived(rreq, 4, &flag), MPI_ERR_ARG, "MPI_Parrived", "partition 4", "Parrived range");
  flag = 0;
  CHECK_MPI(MPI_Parrived(rreq, 3, &flag));
  CHECK(flag, "MPI_PROC_NULL receive: partition 3 not arrived");
  CHECK_MPI(MPI_Wait(&rreq, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL receive: status source %d", st.MPI_SOURCE);
  flag = 0;
  CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
  CHECK(flag, "MPI_Parrived(MPI_REQUEST_NULL) gave flag 0");
  /* MPI_Start while active */
  CHECK_MPI(MPI_Start(&req));
  mt_expect_error_saying(MPI_Start(&req), MPI_ERR_REQUEST, "MPI_Start", NULL, "MPI_Start of an active request");
  CHECK_MPI(MPI_Pready_range(0, 3, req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&req));
  CHECK_MPI(MPI_Request_free(&rreq));
  CHECK(req == MPI_REQUEST_NULL && rreq == MPI_REQUEST_NULL, "MPI_Request_free left a handle");
}

/* Pairs (0,1), (2,3): the even rank sends. */
static void with_partner(int rank, int peer) {
  static int sbuf[64], rbuf[64]; /* static: the last send is freed while active */
  int sending = rank < peer;
  MPI_Request req;
  MPI_Status st;

  /* Never started, then freed (MPICH's part/no_start), twice on one tag:
   * the next pair must still match its own partner. */
  for (int i = 0; i < 2; i++) {
    if (sending) CHECK_MPI(MPI_Psend_init(sbuf, 1, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    else CHECK_MPI(MPI_Precv_init(rbuf, 1, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    CHECK_MPI(MPI_Request_free(&req));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Truncation: 64 ints into 32 ints, on both sides; then a good round on a
   * new pair with the same tag. */
  if (sending) {
    CHECK_MPI(MPI_Psend_init(sbuf, 8, 8, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Pready_range(0, 7, req));
    mt_expect_error_saying(MPI_Wait(&req, &st), MPI_ERR_TRUNCATE, "MPI_Wait", NULL, "sender of a too large message");
  } else {
    CHECK_MPI(MPI_Precv_init(rbuf, 8, 4, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    CHECK_MPI(MPI_Start(&req));
    mt_expect_error_saying(MPI_Wait(&req, &st), MPI_ERR_TRUNCATE, "MPI_Wait", NULL, "receiver of a too large message");
  }
  CHECK_MPI(MPI_Request_free(&req));

  /* MPI_Request_get_status sees the round complete without ending it;
   * MPI_Cancel does not stop the round; freeing an active request lets the
   * round finish (the partner still gets its data). */
  for (int i = 0; i < 64; i++) sbuf[i] = i * 3 + 1, rbuf[i] = -1;
  if (sending) {
    CHECK_MPI(MPI_Psend_init(sbuf, 4, 16, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Pready_range(0, 3, req));
    CHECK_MPI(MPI_Wait(&req, &st));
    int cancelled = 1;
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(!cancelled, "a partitioned send reported cancelled");
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Pready_range(0, 3, req));
    CHECK_MPI(MPI_Request_free(&req)); /* active: the round finishes by itself */
  } else {
    CHECK_MPI(MPI_Precv_init(rbuf, 2, 32, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    CHECK_MPI(MPI_Start(&req));
    int flag = 0;
    double start = MPI_Wtime();
    while (!flag) {
      CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
      CHECK(flag || MPI_Wtime() - start < MT_POLL_LIMIT_S, "MPI_Request_get_status never saw the round complete");
    }
    int n = -1;
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 64 && st.MPI_SOURCE == peer && st.MPI_TAG == 9, "get_status: count %d source %d tag %d", n,
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK(req != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    CHECK_MPI(MPI_Wait(&req, &st));
    for (int i = 0; i < 64; i++) CHECK(rbuf[i] == i * 3 + 1, "round 1: int %d is %d", i, rbuf[i]);
    for (int i = 0; i < 64; i++) rbuf[i] = -1;
    CHECK_MPI(MPI_Start(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    for (int i = 0; i < 64; i++) CHECK(rbuf[i] == i * 3 + 1, "round 2: int %d is %d", i, rbuf[i]);
    CHECK_MPI(MPI_Request_free(&req));
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bad_arguments(rank, size);
  int peer = rank ^ 1;
  if (peer < size) with_partner(rank, peer);
  else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
