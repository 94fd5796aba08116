/*
 * Argument errors of the data-movement collectives (bcast, gather, scatter,
 * allgather, alltoall and their v, w and nonblocking forms) under
 * MPI_ERRORS_RETURN: the call returns the right error class, names itself
 * in its message (FERRY_CHECK_ERROR_STRINGS) and the communicator stays
 * usable. Covered: invalid root (MPI_ERR_ROOT), negative counts
 * (MPI_ERR_COUNT), MPI_DATATYPE_NULL (MPI_ERR_TYPE), NULL buffers with data
 * and sendbuf == recvbuf without MPI_IN_PLACE (MPI_ERR_BUFFER), NULL count
 * arrays and MPI_IN_PLACE where the standard forbids it (MPI_ERR_ARG). MPICH
 * (the reference) does not detect the aliasing, NULL arrays and misplaced
 * MPI_IN_PLACE, so those checks are Ferry-only. An argument error is
 * found before any message moves, so a call that fails on some ranks only
 * is made on those ranks only.
 *
 * Ranks that disagree on a count: the rank that gets more than it expects
 * fails with MPI_ERR_TRUNCATE, the one that gets less with an error (Ferry:
 * MPI_ERR_OTHER), and neither hangs; checked on two ranks, where the tree
 * is a single edge.
 */
#define TEST_NAME "bcast_errors"
#include "../mpitest.h"

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const int ferry = mt_is_ferry();
  int buf[64] = {0}, buf2[64] = {0};
  int counts[64], displs[64];
  MPI_Datatype types[64];
  MPI_Request req;
  for (int i = 0; i < 64; i++) {
    counts[i] = 1;
    displs[i] = i;
    types[i] = MPI_INT;
  }

  /* Everywhere. */
  mt_expect_error(MPI_Bcast(buf, 1, MPI_INT, size, comm), MPI_ERR_ROOT, "MPI_Bcast", "root = size");
  mt_expect_error(MPI_Bcast(buf, 1, MPI_INT, -1, comm), MPI_ERR_ROOT, "MPI_Bcast", "root = -1");
  mt_expect_error(MPI_Ibcast(buf, 1, MPI_INT, size + 3, comm, &req), MPI_ERR_ROOT, "MPI_Ibcast", "root = size + 3");
  mt_expect_error(MPI_Bcast(buf, -1, MPI_INT, 0, comm), MPI_ERR_COUNT, "MPI_Bcast", "count = -1");
  mt_expect_error(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, comm), MPI_ERR_TYPE, "MPI_Bcast", "MPI_DATATYPE_NULL");
  mt_expect_error(MPI_Bcast(NULL, 4, MPI_INT, 0, comm), MPI_ERR_BUFFER, "MPI_Bcast", "NULL buffer");
  if (ferry)
    mt_expect_error(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_ARG, "MPI_Bcast", "MPI_IN_PLACE");
  mt_expect_error(MPI_Gather(buf, 1, MPI_INT, buf2, 1, MPI_INT, -4, comm), MPI_ERR_ROOT, "MPI_Gather", "root = -4");
  mt_expect_error(MPI_Scatter(buf, 1, MPI_INT, buf2, 1, MPI_INT, size, comm), MPI_ERR_ROOT, "MPI_Scatter",
               "root = size");
  mt_expect_error(MPI_Igatherv(buf, 1, MPI_INT, buf2, counts, displs, MPI_INT, size, comm, &req), MPI_ERR_ROOT,
               "MPI_Igatherv", "root = size");
  /* The message names the argument: "sendcount", "recvtype", "count" (api/coll_checks.cc, names_of). */
  mt_expect_error_saying(MPI_Allgather(buf, -2, MPI_INT, buf2, 1, MPI_INT, comm), MPI_ERR_COUNT, "MPI_Allgather",
                         "sendcount", "sendcount = -2");
  mt_expect_error_saying(MPI_Allgather(buf, 1, MPI_INT, buf2, 1, MPI_DATATYPE_NULL, comm), MPI_ERR_TYPE,
                         "MPI_Allgather", "recvtype", "recvtype = MPI_DATATYPE_NULL");
  mt_expect_error_saying(MPI_Bcast(buf, -3, MPI_INT, 0, comm), MPI_ERR_COUNT, "MPI_Bcast", "count -3",
                         "count = -3");
  if (ferry)
    mt_expect_error(MPI_Allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, comm), MPI_ERR_BUFFER, "MPI_Allgather",
                 "sendbuf == recvbuf");
  mt_expect_error(MPI_Iallgather(buf, 1, MPI_INT, NULL, 1, MPI_INT, comm, &req), MPI_ERR_BUFFER, "MPI_Iallgather",
               "recvbuf NULL");
  if (ferry) {
    mt_expect_error(MPI_Allgather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_ARG, "MPI_Allgather",
                 "recvbuf MPI_IN_PLACE");
    mt_expect_error(MPI_Allgatherv(buf, 1, MPI_INT, buf2, NULL, displs, MPI_INT, comm), MPI_ERR_ARG,
                 "MPI_Allgatherv", "recvcounts NULL");
    mt_expect_error(MPI_Alltoallv(buf, counts, NULL, MPI_INT, buf2, counts, displs, MPI_INT, comm), MPI_ERR_ARG,
                 "MPI_Alltoallv", "sdispls NULL");
  }
  counts[size - 1] = -1;
  mt_expect_error(MPI_Allgatherv(buf, 1, MPI_INT, buf2, counts, displs, MPI_INT, comm), MPI_ERR_COUNT,
               "MPI_Allgatherv", "recvcounts[size-1] = -1");
  mt_expect_error(MPI_Alltoallv(buf, counts, displs, MPI_INT, buf2, counts, displs, MPI_INT, comm), MPI_ERR_COUNT,
               "MPI_Alltoallv", "counts[size-1] = -1");
  counts[size - 1] = 1;
  if (ferry)
    mt_expect_error(MPI_Alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, comm), MPI_ERR_BUFFER, "MPI_Alltoall",
                 "sendbuf == recvbuf");
  mt_expect_error(MPI_Ialltoall(buf, 1, MPI_INT, buf2, -1, MPI_INT, comm, &req), MPI_ERR_COUNT, "MPI_Ialltoall",
               "recvcount = -1");
  types[0] = MPI_DATATYPE_NULL;
  mt_expect_error(MPI_Alltoallw(buf, counts, displs, types, buf2, counts, displs, types, comm), MPI_ERR_TYPE,
               "MPI_Alltoallw", "sendtypes[0] = MPI_DATATYPE_NULL");
  types[0] = MPI_INT;

  /* Root-only arguments: the root makes the call alone. */
  if (rank == 0) {
    mt_expect_error(MPI_Gather(buf, 1, MPI_INT, buf2, -1, MPI_INT, 0, comm), MPI_ERR_COUNT, "MPI_Gather",
                 "recvcount = -1 at the root");
    if (ferry)
      mt_expect_error(MPI_Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER, "MPI_Gather",
                   "sendbuf == recvbuf at the root");
    mt_expect_error(MPI_Scatter(buf, 1, MPI_DATATYPE_NULL, buf2, 1, MPI_INT, 0, comm), MPI_ERR_TYPE, "MPI_Scatter",
                 "sendtype = MPI_DATATYPE_NULL at the root");
    counts[0] = -2;
    mt_expect_error(MPI_Scatterv(buf, counts, displs, MPI_INT, buf2, 1, MPI_INT, 0, comm), MPI_ERR_COUNT,
                 "MPI_Scatterv", "sendcounts[0] = -2 at the root");
    counts[0] = 1;
  }
  /* Non-root-only arguments: a non-root makes the call alone. */
  if (rank == 1 && ferry) {
    mt_expect_error(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, NULL, 0, MPI_INT, 0, comm), MPI_ERR_ARG, "MPI_Gather",
                 "sendbuf MPI_IN_PLACE at a non-root");
    mt_expect_error(MPI_Iscatter(NULL, 0, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, comm, &req), MPI_ERR_ARG,
                 "MPI_Iscatter", "recvbuf MPI_IN_PLACE at a non-root");
  }

  /* The communicator still works, its collectives still in step. */
  for (int i = 0; i < 64; i++) buf[i] = rank == size - 1 ? 1000 + i : -1;
  CHECK(MPI_Bcast(buf, 64, MPI_INT, size - 1, comm) == MPI_SUCCESS, "MPI_Bcast after the errors failed");
  for (int i = 0; i < 64; i++) CHECK(buf[i] == 1000 + i, "MPI_Bcast after the errors: buf[%d] = %d", i, buf[i]);

  /* Count mismatches, on two ranks. */
  MPI_Comm pair;
  MPI_Comm_split(comm, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
  if (pair != MPI_COMM_NULL && size >= 2) {
    MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN);
    for (int form = 0; form < 2; form++) {
      /* form 0: the root sends 10, rank 1 expects 5; form 1: the other way. */
      int n = (rank == 0) == (form == 0) ? 10 : 5;
      int rc = form == 0 ? MPI_Bcast(buf, n, MPI_INT, 0, pair) : MPI_Bcast(buf, n, MPI_INT, 0, pair);
      if (rank == 0) {
        CHECK(rc == MPI_SUCCESS, "mismatched MPI_Bcast failed at the root (form %d)", form);
      } else if (form == 0) {
        mt_expect_error(rc, MPI_ERR_TRUNCATE, "MPI_Bcast", "10 ints broadcast, 5 expected");
      } else if (ferry) {
        mt_expect_error(rc, MPI_ERR_OTHER, "MPI_Bcast", "5 ints broadcast, 10 expected");
      }
    }
    /* And the pair still works. */
    for (int i = 0; i < 64; i++) buf[i] = rank == 0 ? 7 * i : -1;
    CHECK(MPI_Bcast(buf, 64, MPI_INT, 0, pair) == MPI_SUCCESS, "MPI_Bcast after the mismatches failed");
    for (int i = 0; i < 64; i++) CHECK(buf[i] == 7 * i, "MPI_Bcast after the mismatches: buf[%d] = %d", i, buf[i]);
    MPI_Comm_free(&pair);
  }
  MPI_Comm_free(&comm);
  mt_pass();
  MPI_Finalize();
  return 0;
}
