/*
 * MPI_Barrier and MPI_Ibarrier hold every rank until all have entered:
 * rank 0 enters late and nobody may leave before it has; many Ibarriers
 * outstanding at once complete, in any order of waiting; and Ibarrier
 * serves as the termination test of a dynamic sparse exchange (Hoefler's
 * NBX: each rank Issends to a few peers, receives whatever arrives, enters
 * the Ibarrier once its sends are matched and stops when the Ibarrier
 * completes), which needs the barrier to progress while the rank polls
 * point-to-point. Runs on the communicators of test_comms.h.
 */
#define TEST_NAME "barrier_semantics"
#include "../mpitest.h"
#include "test_comms.h"

#define LATE_S 0.3
#define NB 24
#define NBX_TAG 7

static void run(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  /* Nobody leaves before the late rank 0 has entered. */
  for (int form = 0; form < 2; form++) {
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    if (rank == 0) {
      struct timespec pause = {0, (long)(LATE_S * 1e9)};
      nanosleep(&pause, NULL);
    }
    if (form == 0) {
      MPI_Barrier(comm);
    } else {
      MPI_Request req;
      MPI_Ibarrier(comm, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    double waited = MPI_Wtime() - start;
    /* The first barrier released the ranks within a short while of each
     * other; half the delay leaves plenty of room for that. */
    CHECK(waited >= LATE_S / 2, "%s: %s returned after %.3f s, before rank 0 entered (%.1f s late)", name,
          form == 0 ? "MPI_Barrier" : "MPI_Ibarrier", waited, LATE_S);
  }

  /* Many outstanding Ibarriers, waited for last to first. */
  MPI_Request reqs[NB];
  for (int i = 0; i < NB; i++) MPI_Ibarrier(comm, &reqs[i]);
  for (int i = NB - 1; i >= 0; i--) {
    MPI_Status st;
    MPI_Wait(&reqs[i], &st);
    CHECK(reqs[i] == MPI_REQUEST_NULL, "%s: MPI_Wait left Ibarrier %d set", name, i);
  }

  /* NBX: rank r sends to r+1 and r+3 (mod size; fewer on small
   * communicators), each message carrying the sender's rank. */
  int targets[2], ntargets = 0;
  for (int d = 1; d <= 3 && d < size; d += 2) targets[ntargets++] = (rank + d) % size;
  int expect = 0;
  for (int d = 1; d <= 3 && d < size; d += 2) expect++;
  MPI_Request sends[2];
  for (int i = 0; i < ntargets; i++) MPI_Issend(&rank, 1, MPI_INT, targets[i], NBX_TAG, comm, &sends[i]);
  MPI_Request barrier = MPI_REQUEST_NULL;
  int got = 0, entered = 0, done = 0;
  double start = MPI_Wtime();
  while (!done) {
    int flag;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, NBX_TAG, comm, &flag, &st);
    if (flag) {
      int from;
      MPI_Recv(&from, 1, MPI_INT, st.MPI_SOURCE, NBX_TAG, comm, MPI_STATUS_IGNORE);
      CHECK(from == st.MPI_SOURCE, "%s: NBX message says rank %d, came from %d", name, from, st.MPI_SOURCE);
      CHECK(from == (rank - 1 + size) % size || from == (rank - 3 + size) % size,
            "%s: NBX message from unexpected rank %d", name, from);
      got++;
    }
    if (!entered) {
      int all;
      MPI_Testall(ntargets, sends, &all, MPI_STATUSES_IGNORE);
      if (all) {
        MPI_Ibarrier(comm, &barrier);
        entered = 1;
      }
    } else {
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    }
    CHECK(MPI_Wtime() - start < MT_POLL_LIMIT_S, "%s: NBX did not end after %.0f s", name, MT_POLL_LIMIT_S);
  }
  CHECK(got == expect, "%s: NBX received %d messages, expected %d", name, got, expect);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  for_each_comm(run);
  mt_pass();
  MPI_Finalize();
  return 0;
}
