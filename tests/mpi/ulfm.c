/*
 * MPICH's ULFM calls where no process outlives a failure (README "Fault
 * tolerance"): MPIX_Comm_agree is the bitwise AND of every member's flag;
 * MPIX_Comm_shrink gives a working communicator of all members in order;
 * MPIX_Comm_failure_ack does nothing and MPIX_Comm_failure_get_acked gives
 * MPI_GROUP_EMPTY; MPIX_Comm_revoke by rank 0 ends a receive that rank 1
 * has posted on the communicator (and is waiting in) with MPIX_ERR_REVOKED,
 * later sends, receives and collectives on it fail the same way at every
 * member, the revoked communicator can still be agreed on and shrunk, and
 * other communicators are untouched. A large (rendezvous) send that no
 * receive took fails at its sender with MPIX_ERR_REVOKED when the receiver
 * revokes, rather than waiting for ever. Revoking an intercommunicator
 * reaches both groups.
 */
#define TEST_NAME "ulfm"
#include "mpitest.h"

static int error_class(int err) {
  int cls = -1;
  MPI_Error_class(err, &cls);
  return cls;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");

  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

  /* Agreement: the AND of every rank's bits. */
  int flag = ~(1 << rank);
  CHECK(MPIX_Comm_agree(comm, &flag) == MPI_SUCCESS, "agree");
  int expected = ~0;
  for (int r = 0; r < size; ++r) expected &= ~(1 << r);
  CHECK(flag == expected, "agree gave 0x%x, expected 0x%x", (unsigned)flag, (unsigned)expected);

  /* Nothing failed. */
  MPI_Group acked;
  CHECK(MPIX_Comm_failure_ack(comm) == MPI_SUCCESS, "failure_ack");
  CHECK(MPIX_Comm_failure_get_acked(comm, &acked) == MPI_SUCCESS && acked == MPI_GROUP_EMPTY, "get_acked");

  /* Shrink: everyone, in order, and it works. */
  MPI_Comm small;
  CHECK(MPIX_Comm_shrink(comm, &small) == MPI_SUCCESS, "shrink");
  int srank = -1, ssize = -1, sum = 0;
  MPI_Comm_rank(small, &srank);
  MPI_Comm_size(small, &ssize);
  CHECK(srank == rank && ssize == size, "shrunk: rank %d of %d", srank, ssize);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, small);
  CHECK(sum == size * (size - 1) / 2, "allreduce on the shrunk communicator: %d", sum);
  MPI_Comm_free(&small);

  /* Revoke: rank 1 posts a receive on comm, tells rank 0 (on world) it
   * waits, and waits; rank 0 then revokes comm. */
  if (rank == 1) {
    int value = 0, ready = 1;
    MPI_Request r;
    MPI_Status status;
    CHECK(MPI_Irecv(&value, 1, MPI_INT, 0, 5, comm, &r) == MPI_SUCCESS, "irecv");
    MPI_Send(&ready, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
    int err = MPI_Wait(&r, &status);
    CHECK(error_class(err) == MPIX_ERR_REVOKED, "the pending receive ended with class %d, not MPIX_ERR_REVOKED",
          error_class(err));
  } else if (rank == 0) {
    int ready = 0;
    MPI_Recv(&ready, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(MPIX_Comm_revoke(comm) == MPI_SUCCESS, "revoke");
  }
  /* Every member learns of it; world still works meanwhile. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank >= 2) {
    /* Its revocation packet may still be on its way: a receive ends either way. */
    int value;
    int err = MPI_Recv(&value, 1, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE);
    CHECK(error_class(err) == MPIX_ERR_REVOKED, "receive on a revoked communicator: class %d", error_class(err));
  }
  int value = 1;
  int err = MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, 7, comm);
  CHECK(error_class(err) == MPIX_ERR_REVOKED, "send on a revoked communicator: class %d", error_class(err));
  err = MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 7, comm, MPI_STATUS_IGNORE);
  CHECK(error_class(err) == MPIX_ERR_REVOKED, "receive on a revoked communicator: class %d", error_class(err));
  err = MPI_Barrier(comm);
  CHECK(error_class(err) == MPIX_ERR_REVOKED, "barrier on a revoked communicator: class %d", error_class(err));
  /* A persistent send started on it fails, through comm's handler (errors
   * return) for MPI_Startall as for MPI_Start (MPI_COMM_WORLD's, fatal,
   * ended the job), and its request completes with the error. */
  MPI_Request persistent[2];
  MPI_Send_init(&value, 1, MPI_INT, (rank + 1) % size, 8, comm, &persistent[0]);
  MPI_Send_init(&value, 1, MPI_INT, (rank + 1) % size, 9, comm, &persistent[1]);
  err = MPI_Start(&persistent[0]);
  CHECK(error_class(err) == MPIX_ERR_REVOKED, "MPI_Start on a revoked communicator: class %d", error_class(err));
  err = MPI_Wait(&persistent[0], MPI_STATUS_IGNORE);
  CHECK(error_class(err) == MPIX_ERR_REVOKED, "MPI_Wait after a refused MPI_Start: class %d", error_class(err));
  err = MPI_Startall(2, persistent);
  CHECK(error_class(err) == MPIX_ERR_REVOKED, "MPI_Startall on a revoked communicator: class %d", error_class(err));
  MPI_Request_free(&persistent[0]);
  MPI_Request_free(&persistent[1]);
  char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(err, text, &len);
  CHECK(strstr(text, "revoked") != NULL, "message '%s'", text);

  /* Agree and shrink still work on it; the shrunk one is not revoked. */
  flag = 1;
  CHECK(MPIX_Comm_agree(comm, &flag) == MPI_SUCCESS && flag == 1, "agree on a revoked communicator");
  CHECK(MPIX_Comm_shrink(comm, &small) == MPI_SUCCESS, "shrink a revoked communicator");
  sum = 0;
  CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, small) == MPI_SUCCESS && sum == size * (size - 1) / 2,
        "allreduce after shrinking a revoked communicator");
  MPI_Comm_free(&small);
  MPI_Comm_free(&comm);

  /* A rendezvous send nobody receives ends when its receiver revokes. */
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  MPI_Comm_set_errhandler(other, MPI_ERRORS_RETURN);
  enum { BIG = 4 << 20 };
  if (rank == 0) {
    char *big = calloc(BIG, 1);
    MPI_Request r;
    int ready = 1;
    CHECK(MPI_Isend(big, BIG, MPI_CHAR, 1, 8, other, &r) == MPI_SUCCESS, "isend");
    MPI_Send(&ready, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
    err = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(error_class(err) == MPIX_ERR_REVOKED, "the unreceived large send ended with class %d", error_class(err));
    free(big);
  } else if (rank == 1) {
    int ready = 0;
    MPI_Recv(&ready, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(MPIX_Comm_revoke(other) == MPI_SUCCESS, "revoke other");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&other);

  /* An intercommunicator between the even and the odd ranks: world rank 0
   * revokes it once world rank 1 waits in a receive on it; then a receive
   * on it fails at every rank of both groups. */
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 77, &inter);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  if (rank == 1) {
    int ready = 1;
    MPI_Request r;
    CHECK(MPI_Irecv(&value, 1, MPI_INT, 0, 5, inter, &r) == MPI_SUCCESS, "irecv on the intercommunicator");
    MPI_Send(&ready, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
    err = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(error_class(err) == MPIX_ERR_REVOKED, "intercommunicator receive ended with class %d", error_class(err));
  } else if (rank == 0) {
    int ready = 0;
    MPI_Recv(&ready, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(MPIX_Comm_revoke(inter) == MPI_SUCCESS, "revoke the intercommunicator");
  }
  err = MPI_Recv(&value, 1, MPI_INT, 0, 6, inter, MPI_STATUS_IGNORE);
  CHECK(error_class(err) == MPIX_ERR_REVOKED, "receive on a revoked intercommunicator: class %d", error_class(err));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);

  /* Bad arguments. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(error_class(MPIX_Comm_agree(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG, "agree with a null flag");
  CHECK(error_class(MPIX_Comm_revoke(MPI_COMM_NULL)) == MPI_ERR_COMM, "revoke MPI_COMM_NULL");
  MPI_Barrier(MPI_COMM_WORLD);
  mt_pass();
  MPI_Finalize();
  return 0;
}
