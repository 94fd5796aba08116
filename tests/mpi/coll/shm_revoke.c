/*
 * A shared-memory collective (coll/shm) blocked on a member that revokes the
 * communicator (MPIX_Comm_revoke) instead of calling the collective must end
 * with MPIX_ERR_REVOKED, as the same call through messages does (its
 * receives are failed by the revocation, p2p/revoke.h), and name the call.
 *
 * For each of barrier, bcast (root: the revoking rank), allreduce, gather
 * (root 0, waiting on the revoking rank's cell), allgather and alltoall: a
 * fresh duplicate of MPI_COMM_WORLD, one warm-up barrier on it (which makes
 * its shared-memory segment), then every rank but the last enters the call
 * and the last rank, after 200 ms, revokes instead. Before the fix the
 * others waited on its flag for ever (shared-memory waits looked at the
 * revocation only when the call started). The data fit a cell, so the calls
 * take the shared-memory path (FERRY_COLL_SHM=on in CMakeLists.txt).
 *
 * Then the same without the warm-up: the call makes the segment
 * (FERRY_COLL_SHM_AFTER=0), and the revocation ends its creation round. And
 * in both, every rank then calls the collective once more on the revoked
 * communicator, which goes by messages and must fail at once (it hung: a
 * send refused at its start left its request incomplete, and the
 * collective's schedule waited on it).
 */
#define TEST_NAME "shm_revoke"
#include <string.h>
#include <unistd.h>

#include "../mpitest.h"

enum { kBarrier, kBcast, kAllreduce, kGather, kAllgather, kAlltoall, kOps };
static const char *const names[kOps] = {"MPI_Barrier",   "MPI_Bcast",     "MPI_Allreduce",
                                        "MPI_Gather",    "MPI_Allgather", "MPI_Alltoall"};

static int call(int op, MPI_Comm comm, int last, int *sbuf, int *rbuf) {
  switch (op) {
    case kBarrier: return MPI_Barrier(comm);
    case kBcast: return MPI_Bcast(sbuf, 4, MPI_INT, last, comm);
    case kAllreduce: return MPI_Allreduce(sbuf, rbuf, 4, MPI_INT, MPI_SUM, comm);
    case kGather: return MPI_Gather(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, 0, comm);
    case kAllgather: return MPI_Allgather(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, comm);
    default: return MPI_Alltoall(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, comm);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  const int last = size - 1;
  int *sbuf = mt_malloc(sizeof(int) * 4 * (size_t)size);
  int *rbuf = mt_malloc(sizeof(int) * 4 * (size_t)size);
  for (int i = 0; i < 4 * size; i++) sbuf[i] = rank + i;

  for (int step = 0; step < 2 * kOps; step++) {
    const int op = step % kOps, warm_up = step < kOps;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (warm_up) CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "%s: the warm-up barrier failed", names[op]);
    if (rank == last) {
      usleep(200 * 1000);
      CHECK(MPIX_Comm_revoke(comm) == MPI_SUCCESS, "%s: revoke", names[op]);
    } else {
      int rc = call(op, comm, last, sbuf, rbuf);
      int cls = -1, len = 0;
      char msg[MPI_MAX_ERROR_STRING] = "";
      MPI_Error_class(rc, &cls);
      if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
      /* A gather's other non-roots only write their cells, and may finish. */
      if (op == kGather && rank != 0 && rc == MPI_SUCCESS) goto next;
      CHECK(cls == MPIX_ERR_REVOKED, "%s: ended with class %d (\"%s\"), not MPIX_ERR_REVOKED", names[op], cls, msg);
      CHECK(strstr(msg, "revoked") != NULL, "%s: the message \"%s\" does not say revoked", names[op], msg);
#ifdef FERRY_CHECK_ERROR_STRINGS
      CHECK(strstr(msg, names[op]) != NULL, "%s: the message \"%s\" does not name the call", names[op], msg);
#endif
    }
  next:
    /* Every member of the world is still in step. */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "%s: world barrier", names[op]);
    {
      int rc = call(op, comm, last, sbuf, rbuf), cls = -1;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPIX_ERR_REVOKED, "%s %s warm-up, called again on the revoked communicator: class %d, not "
            "MPIX_ERR_REVOKED", names[op], warm_up ? "after a" : "without", cls);
    }
    MPI_Comm_free(&comm);
  }
  free(sbuf);
  free(rbuf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
