/*
 * A collective with nothing to move fails on a revoked communicator as one
 * with data does (MPIX_ERR_REVOKED): calls of 0 bytes, and any call on a
 * communicator of one rank, finish without a message (coll/at_once.h), and
 * returned MPI_SUCCESS there, so a program that learns of a failure through
 * the error of its next collective went on as if nothing had happened.
 *
 * Every rank revokes the communicator itself (no notice to wait for), after
 * a warm-up of the same calls with no data that must succeed (and, with
 * FERRY_COLL_SHM_AFTER=0 in CMakeLists.txt, make the shared-memory segment
 * whose deferred path the calls then take; with FERRY_COLL_SHM=off, the
 * path of a communicator that never has one). Then: each blocking call with
 * no data, nonblocking ones (the error at the call or at its wait), a
 * persistent one's start (or its wait), an intercommunicator's (and one
 * with data there where only one rank revokes), and a communicator of one
 * rank's barrier and reductions with data.
 */
#define TEST_NAME "ulfm_no_data"
#include <string.h>

#include "mpitest.h"

enum { kCalls = 11 };
static const char *const names[kCalls] = {"MPI_Bcast",  "MPI_Gather",     "MPI_Scatter",
                                          "MPI_Allgather", "MPI_Alltoall", "MPI_Allreduce",
                                          "MPI_Reduce", "MPI_Reduce_scatter_block", "MPI_Reduce_scatter",
                                          "MPI_Scan",   "MPI_Exscan"};

/* Call `i` with no data on `comm`; `counts` holds a zero per rank. */
static int no_data(int i, MPI_Comm comm, int *counts) {
  int s = 0, r = 0;
  switch (i) {
    case 0: return MPI_Bcast(&s, 0, MPI_INT, 0, comm);
    case 1: return MPI_Gather(&s, 0, MPI_INT, &r, 0, MPI_INT, 0, comm);
    case 2: return MPI_Scatter(&s, 0, MPI_INT, &r, 0, MPI_INT, 0, comm);
    case 3: return MPI_Allgather(&s, 0, MPI_INT, &r, 0, MPI_INT, comm);
    case 4: return MPI_Alltoall(&s, 0, MPI_INT, &r, 0, MPI_INT, comm);
    case 5: return MPI_Allreduce(&s, &r, 0, MPI_INT, MPI_SUM, comm);
    case 6: return MPI_Reduce(&s, &r, 0, MPI_INT, MPI_SUM, 0, comm);
    case 7: return MPI_Reduce_scatter_block(&s, &r, 0, MPI_INT, MPI_SUM, comm);
    case 8: return MPI_Reduce_scatter(&s, &r, counts, MPI_INT, MPI_SUM, comm);
    case 9: return MPI_Scan(&s, &r, 0, MPI_INT, MPI_SUM, comm);
    default: return MPI_Exscan(&s, &r, 0, MPI_INT, MPI_SUM, comm);
  }
}

static void expect_revoked(int err, const char *what) {
  int cls = -1, len = 0;
  char msg[MPI_MAX_ERROR_STRING] = "";
  MPI_Error_class(err, &cls);
  if (err != MPI_SUCCESS) MPI_Error_string(err, msg, &len);
  CHECK(cls == MPIX_ERR_REVOKED, "%s on a revoked communicator: class %d (\"%s\"), not MPIX_ERR_REVOKED", what, cls,
        msg);
  CHECK(strstr(msg, "revoked") != NULL, "%s: the message \"%s\" does not say revoked", what, msg);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *counts = mt_malloc(sizeof(int) * (size_t)size);
  memset(counts, 0, sizeof(int) * (size_t)size);

  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  for (int i = 0; i < kCalls; i++) CHECK(no_data(i, comm, counts) == MPI_SUCCESS, "%s with no data", names[i]);
  CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "barrier");
  int s = 0, r = 0;
  MPI_Request persistent;
  CHECK(MPI_Allreduce_init(&s, &r, 0, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &persistent) == MPI_SUCCESS,
        "MPI_Allreduce_init");
  CHECK(MPI_Start(&persistent) == MPI_SUCCESS && MPI_Wait(&persistent, MPI_STATUS_IGNORE) == MPI_SUCCESS,
        "a persistent allreduce with no data, before the revocation");

  /* Every rank past its warm-up before any revokes (the others' notices
   * would fail a warm-up call still running). */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPIX_Comm_revoke(comm) == MPI_SUCCESS, "revoke");
  /* Twice each: the second call must not have been let through by the first. */
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < kCalls; i++) expect_revoked(no_data(i, comm, counts), names[i]);

  MPI_Request request;
  int err = MPI_Start(&persistent);
  if (err == MPI_SUCCESS) err = MPI_Wait(&persistent, MPI_STATUS_IGNORE);
  expect_revoked(err, "a persistent MPI_Allreduce with no data started (the start or its wait)");
  MPI_Request_free(&persistent);
  err = MPI_Ibcast(&s, 0, MPI_INT, 0, comm, &request);
  if (err == MPI_SUCCESS) err = MPI_Wait(&request, MPI_STATUS_IGNORE);
  expect_revoked(err, "MPI_Ibcast with no data (the call or its wait)");
  err = MPI_Iallreduce(&s, &r, 0, MPI_INT, MPI_SUM, comm, &request);
  if (err == MPI_SUCCESS) err = MPI_Wait(&request, MPI_STATUS_IGNORE);
  expect_revoked(err, "MPI_Iallreduce with no data (the call or its wait)");
  MPI_Comm_free(&comm);

  /* An intercommunicator between the even and the odd ranks. */
  if (size >= 2) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 78, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    CHECK(MPI_Allreduce(&s, &r, 0, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS, "intercommunicator allreduce");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPIX_Comm_revoke(inter) == MPI_SUCCESS, "revoke the intercommunicator");
    expect_revoked(MPI_Allreduce(&s, &r, 0, MPI_INT, MPI_SUM, inter), "MPI_Allreduce on an intercommunicator");
    expect_revoked(MPI_Allgather(&s, 0, MPI_INT, &r, 0, MPI_INT, inter), "MPI_Allgather on an intercommunicator");
    /* From 3 ranks the root's group has ranks passing MPI_PROC_NULL: they
     * take no part in the transfer, but the call fails all the same. */
    int root = rank % 2 == 1 ? 0 : rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    expect_revoked(MPI_Bcast(&s, 1, MPI_INT, root, inter), "MPI_Bcast with data on an intercommunicator");
    err = MPI_Ibcast(&s, 1, MPI_INT, root, inter, &request);
    if (err == MPI_SUCCESS) err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    expect_revoked(err, "MPI_Ibcast with data on an intercommunicator (the call or its wait)");
    MPI_Comm_free(&inter);

    /* Only world rank 0 revokes; the others learn it from its notice, from
     * 3 ranks on some of them while waiting for a step that its group takes
     * on a hidden communicator of its own (coll/inter): that wait must end
     * too. Everyone needs rank 0's value, so no one can succeed. */
    if (size >= 3) {
      MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 79, &inter);
      MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
      if (rank == 0) CHECK(MPIX_Comm_revoke(inter) == MPI_SUCCESS, "world rank 0 revokes the intercommunicator");
      s = 1;
      expect_revoked(MPI_Allreduce(&s, &r, 1, MPI_INT, MPI_SUM, inter),
                     "MPI_Allreduce with data on an intercommunicator that world rank 0 revoked");
      MPI_Comm_free(&inter);
    }
    MPI_Comm_free(&half);
  }

  /* A communicator of one rank: nobody to meet, but revoked all the same. */
  MPI_Comm self;
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
  s = 5;
  CHECK(MPI_Allreduce(&s, &r, 1, MPI_INT, MPI_SUM, self) == MPI_SUCCESS && r == 5, "one rank's allreduce");
  CHECK(MPIX_Comm_revoke(self) == MPI_SUCCESS, "revoke the one-rank communicator");
  expect_revoked(MPI_Barrier(self), "MPI_Barrier of one rank");
  expect_revoked(MPI_Bcast(&s, 1, MPI_INT, 0, self), "MPI_Bcast of one rank");
  expect_revoked(MPI_Allreduce(&s, &r, 1, MPI_INT, MPI_SUM, self), "MPI_Allreduce of one rank");
  expect_revoked(MPI_Allgather(&s, 1, MPI_INT, &r, 1, MPI_INT, self), "MPI_Allgather of one rank");
  err = MPI_Ibarrier(self, &request);
  if (err == MPI_SUCCESS) err = MPI_Wait(&request, MPI_STATUS_IGNORE);
  expect_revoked(err, "MPI_Ibarrier of one rank (the call or its wait)");
  MPI_Comm_free(&self);

  free(counts);
  MPI_Barrier(MPI_COMM_WORLD);
  mt_pass();
  MPI_Finalize();
  return 0;
}
