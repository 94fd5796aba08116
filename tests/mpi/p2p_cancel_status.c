/*
 * MPI_Cancel of a send, then MPI_Request_get_status (MPI-3.1 §3.8.4): the
 * program learns the cancel's outcome from the status of a completed
 * request, and whatever it was told decides what it does next: a cancelled
 * message must never be received, one not cancelled must be received before
 * the send's wait may return.
 *
 * To this process (rank == dest, on MPI_COMM_SELF and on a duplicate of
 * MPI_COMM_WORLD), the receiver is the caller itself, so the answer needs
 * nobody else: on Ferry, the first MPI_Request_get_status after MPI_Cancel
 * must find the request complete and cancelled (MPICH 4.0.2 does so at one
 * rank; on a larger communicator it may refuse the cancel or not have
 * decided yet, which MPI allows, and the test then receives the message as
 * mpi4py does). These are mpi4py's patterns (test_p2p_buf testProbeCancel:
 * Issend, Probe, Cancel, Get_status, and a Recv + Wait if not cancelled;
 * test_p2p_obj testCancel: Issend, Cancel, Get_status; test_util_pkl5
 * testISSendCancel: Issend, Test, Cancel, Get_status), for empty, eager and
 * rendezvous sizes, synchronous and standard sends. Ferry used to answer
 * "not complete" there, and the cancel then succeeded behind the program's
 * back: its Recv waited for ever. A send already received cannot be
 * cancelled, and says so.
 *
 * To another rank (Ferry only: MPICH 4.0.2 refuses those cancels and then
 * never delivers the message), the answer comes from the receiver, and a
 * sender that only polls MPI_Request_get_status must see it arrive, with or
 * without the receiver having probed the message first.
 */
#define TEST_NAME "p2p_cancel_status"
#include "mpitest.h"

#define BIG (1 << 20)

static int world_rank, world_size;

/* MPI_Request_get_status until the request is complete: its status. */
static MPI_Status wait_by_get_status(MPI_Request req, const char *what) {
  MPI_Status st;
  int flag = 0;
  double start = MPI_Wtime();
  for (;;) {
    CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
    if (flag) return st;
    CHECK(MPI_Wtime() - start < MT_POLL_LIMIT_S, "%s: MPI_Request_get_status says not complete after %.0f s",
          what, MT_POLL_LIMIT_S);
  }
}

enum self_pattern { PROBE_FIRST, CANCEL_AT_ONCE, TEST_FIRST, RECEIVED_FIRST };
static const char *const pattern_names[] = {"probed", "not probed", "tested", "received"};

/* One send to this process on `comm`, cancelled as `pattern` says. */
static void cancel_to_self(MPI_Comm comm, const char *comm_name, int bytes, int synchronous,
                           enum self_pattern pattern, int tag) {
  int me;
  MPI_Comm_rank(comm, &me);
  char what[160];
  snprintf(what, sizeof what, "%s of %d bytes to self on %s, %s before MPI_Cancel",
           synchronous ? "MPI_Issend" : "MPI_Isend", bytes, comm_name, pattern_names[pattern]);
  uint32_t seed = mt_seed((uint32_t)world_rank, (uint32_t)tag, (uint32_t)bytes);
  char *buf = mt_malloc((size_t)bytes + 1), *got = mt_malloc((size_t)bytes + 1);
  mt_fill(buf, (size_t)bytes, seed);
  MPI_Request req;
  MPI_Status st;
  int flag = -1, cancelled = -1, count = -1;
  if (synchronous) CHECK_MPI(MPI_Issend(buf, bytes, MPI_BYTE, me, tag, comm, &req));
  else CHECK_MPI(MPI_Isend(buf, bytes, MPI_BYTE, me, tag, comm, &req));

  switch (pattern) {
    case PROBE_FIRST:
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(st.MPI_SOURCE == me && st.MPI_TAG == tag && count == bytes,
            "%s: MPI_Probe saw source %d tag %d count %d", what, st.MPI_SOURCE, st.MPI_TAG, count);
      break;
    case TEST_FIRST:
      CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
      /* Nobody has received it: a synchronous send cannot be complete. */
      CHECK(!synchronous || !flag, "%s: MPI_Test says an unreceived synchronous send is complete", what);
      if (flag) { /* a standard send MPI_Test completed and freed: nothing left to cancel */
        CHECK_MPI(MPI_Recv(got, bytes, MPI_BYTE, me, tag, comm, MPI_STATUS_IGNORE));
        free(buf), free(got);
        return;
      }
      break;
    case RECEIVED_FIRST:
      CHECK_MPI(MPI_Recv(got, bytes, MPI_BYTE, me, tag, comm, MPI_STATUS_IGNORE));
      CHECK_PATTERN(got, (size_t)bytes, seed, "%s", what);
      break;
    case CANCEL_AT_ONCE:
      break;
  }

  CHECK_MPI(MPI_Cancel(&req));
  CHECK(req != MPI_REQUEST_NULL, "%s: MPI_Cancel freed the request", what);
  /* A status the answer must overwrite, whichever way it goes. */
  MPI_Status_set_cancelled(&st, pattern == RECEIVED_FIRST);
  CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
  if (!flag) {
    /* Undecided yet (MPICH 4.0.2 on a communicator of more than one rank):
     * then the cancel must fail, as mpi4py expects, which receives it. */
    CHECK(!mt_is_ferry(), "%s: MPI_Request_get_status right after MPI_Cancel says not complete (the receiver "
                          "is this process, nothing else decides)", what);
    if (pattern != RECEIVED_FIRST) {
      CHECK_MPI(MPI_Recv(got, bytes, MPI_BYTE, me, tag, comm, MPI_STATUS_IGNORE));
      CHECK_PATTERN(got, (size_t)bytes, seed, "%s, undecided cancel", what);
    }
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(!cancelled, "%s: received, and yet cancelled", what);
    free(buf), free(got);
    return;
  }
  CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
  if (pattern == RECEIVED_FIRST) {
    CHECK(!cancelled, "%s: a send this process has received says cancelled", what);
  } else if (mt_is_ferry()) {
    CHECK(cancelled, "%s: an unreceived send to this process was not cancelled", what);
  } else if (!cancelled) {
    /* MPI lets a cancel fail (MPICH 4.0.2's does on a communicator of more
     * than one rank): then the message must be there, intact. */
    CHECK_MPI(MPI_Recv(got, bytes, MPI_BYTE, me, tag, comm, MPI_STATUS_IGNORE));
    CHECK_PATTERN(got, (size_t)bytes, seed, "%s, cancel refused", what);
  }

  /* Completing it: MPI_Wait reports the same, or MPI_Request_free (mpi4py's
   * way for a cancelled request). */
  if (pattern == PROBE_FIRST && cancelled) {
    CHECK_MPI(MPI_Request_free(&req));
  } else {
    MPI_Status_set_cancelled(&st, !cancelled);
    CHECK_MPI(MPI_Wait(&req, &st));
    int again = -1;
    CHECK_MPI(MPI_Test_cancelled(&st, &again));
    CHECK(again == cancelled, "%s: MPI_Wait's status says cancelled=%d, MPI_Request_get_status's %d", what,
          again, cancelled);
  }
  CHECK(req == MPI_REQUEST_NULL, "%s: request not freed", what);

  /* A cancelled message is gone. */
  int found = 1;
  CHECK_MPI(MPI_Iprobe(me, tag, comm, &found, MPI_STATUS_IGNORE));
  CHECK(!found, "%s: the message is still there after its cancel (cancelled=%d)", what, cancelled);
  free(buf), free(got);
}

/* Each rank sends to its right neighbour on `comm`, which has probed it
 * (or not), then cancels; MPI_Request_get_status alone must bring the
 * receiver's answer. */
static void cancel_to_peer(MPI_Comm comm, int bytes, int synchronous, int probed, int tag) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  char what[160];
  snprintf(what, sizeof what, "%s of %d bytes to rank %d, %sprobed by it, then cancelled",
           synchronous ? "MPI_Issend" : "MPI_Isend", bytes, right, probed ? "" : "not ");
  char *buf = mt_malloc((size_t)bytes), *got = mt_malloc((size_t)bytes);
  mt_fill(buf, (size_t)bytes, mt_seed((uint32_t)rank, (uint32_t)tag, 5));
  MPI_Request req;
  if (synchronous) CHECK_MPI(MPI_Issend(buf, bytes, MPI_BYTE, right, tag, comm, &req));
  else CHECK_MPI(MPI_Isend(buf, bytes, MPI_BYTE, right, tag, comm, &req));
  if (probed) {
    MPI_Status pst;
    mt_wait_probe(left, tag, comm, &pst, what);
  }
  CHECK_MPI(MPI_Barrier(comm)); /* every message is where it is going to stay until cancelled */
  CHECK_MPI(MPI_Cancel(&req));
  MPI_Status st = wait_by_get_status(req, what);
  int cancelled = -1;
  CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled, "%s: an unreceived send was not cancelled", what);
  CHECK_MPI(MPI_Wait(&req, &st));
  int again = -1;
  CHECK_MPI(MPI_Test_cancelled(&st, &again));
  CHECK(again, "%s: MPI_Wait's status does not say cancelled", what);
  CHECK_MPI(MPI_Barrier(comm)); /* every cancel is over */
  int found = 1;
  CHECK_MPI(MPI_Iprobe(left, tag, comm, &found, MPI_STATUS_IGNORE));
  CHECK(!found, "%s: a cancelled message from rank %d is still there", what, left);
  free(buf), free(got);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm world;
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

  /* 0 bytes (mpi4py's), eager, and past any eager limit. */
  const int sizes[] = {0, 8, BIG};
  int tag = 100;
  for (int s = 0; s < 3; ++s)
    for (int synchronous = 1; synchronous >= 0; --synchronous)
      for (int p = PROBE_FIRST; p <= RECEIVED_FIRST; ++p) {
        cancel_to_self(MPI_COMM_SELF, "MPI_COMM_SELF", sizes[s], synchronous, (enum self_pattern)p, tag++);
        cancel_to_self(world, "a dup of MPI_COMM_WORLD", sizes[s], synchronous, (enum self_pattern)p, tag++);
      }

  /* Another communicator: the self part probes with MPI_ANY_SOURCE on
   * `world`, where a rank still there must not see these. */
  MPI_Comm peers;
  MPI_Comm_dup(MPI_COMM_WORLD, &peers);
  MPI_Comm_set_errhandler(peers, MPI_ERRORS_RETURN);
  if (world_size > 1 && mt_is_ferry())
    for (int s = 1; s < 3; ++s)
      for (int synchronous = 1; synchronous >= 0; --synchronous)
        for (int probed = 0; probed <= 1; ++probed)
          cancel_to_peer(peers, sizes[s], synchronous, probed, tag++);

  MPI_Comm_free(&peers);
  MPI_Comm_free(&world);
  mt_pass();
  MPI_Finalize();
  return 0;
}
