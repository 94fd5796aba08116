/*
 * A revoke notice names the communicator it was sent for, and no later one
 * that reuses its context id (p2p/revoke.h, base/revocation.h).
 *
 * Rank 0 revokes a fresh duplicate of the world and every rank frees it at
 * once, while rank 0's notices may still be on their way: the notices travel
 * on each pair's channel, the next communicator's agreement on the shared
 * segment, so a rank can finish building the next communicator before it
 * reads the notice. The rounds check that
 *   - a communicator of the other ranks only (MPI_Comm_create_group, so rank
 *     0 takes no part and the freed id is free at all of them) works,
 *   - a duplicate of the world made right after works at every rank,
 *   - a communicator revoked by rank 0 right after it was made fails a
 *     receive at every other rank, even at a rank that reads the notice before
 *     it has finished making the communicator,
 *   - revoking one whose MPI_Comm_idup has not completed is MPI_ERR_COMM.
 * A rank whose operation fails revokes the communicator itself, so that the
 * others return too and the failure is reported rather than hanging.
 */
#define TEST_NAME "ulfm_reuse"
#include "mpitest.h"

enum { ROUNDS = 120 };

static int error_class(int err) {
  int cls = -1;
  MPI_Error_class(err, &cls);
  return cls;
}

static MPI_Comm dup_returning(MPI_Comm parent) {
  MPI_Comm c;
  MPI_Comm_dup(parent, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  return c;
}

/* Rank 0 revokes a new duplicate; every rank frees it without waiting. */
static void revoke_and_free(int rank) {
  MPI_Comm doomed = dup_returning(MPI_COMM_WORLD);
  if (rank == 0) CHECK(MPIX_Comm_revoke(doomed) == MPI_SUCCESS, "revoke");
  MPI_Comm_free(&doomed);
}

/* An allreduce on `c` that must work at every member; 1 if it did here. */
static int works(MPI_Comm c, int members) {
  int one = 1, sum = 0;
  int err = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
  if (err != MPI_SUCCESS) {
    MPIX_Comm_revoke(c);  /* release the members still waiting in it */
    return 0;
  }
  return sum == members;
}

/* A ring exchange on `c` (point to point: no shared segment per kept
 * communicator); 1 if it worked here. */
static int ring_works(MPI_Comm c) {
  int me, n, got = -1;
  MPI_Comm_rank(c, &me);
  MPI_Comm_size(c, &n);
  int err = MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % n, 4, &got, 1, MPI_INT, (me + n - 1) % n, 4, c,
                         MPI_STATUS_IGNORE);
  if (err != MPI_SUCCESS) {
    MPIX_Comm_revoke(c);
    return 0;
  }
  return got == (me + n - 1) % n;
}

/* Whether every rank of the world saw `ok`. */
static int everywhere(int ok) {
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");

  MPI_Group world_group, others_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int zero = 0;
  MPI_Group_excl(world_group, 1, &zero, &others_group);

  /* A communicator rank 0 is not in, first: while rank 0 has kept no
   * revoked slot, the others' lowest free id is the one just revoked, and
   * each round's communicator stays until the end so that the next round's
   * is on the next revoked id again. */
  MPI_Comm kept_others[ROUNDS];
  if (size >= 3) {
    for (int round = 0; round < ROUNDS; ++round) {
      revoke_and_free(rank);
      int ok = 1;
      if (rank != 0) {
        MPI_Comm *others = &kept_others[round];
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, others_group, 7, others) == MPI_SUCCESS, "create_group");
        MPI_Comm_set_errhandler(*others, MPI_ERRORS_RETURN);
        ok = ring_works(*others);
      }
      CHECK(everywhere(ok), "round %d: a communicator without the revoking rank failed at some rank", round);
    }
    if (rank != 0)
      for (int round = 0; round < ROUNDS; ++round) MPI_Comm_free(&kept_others[round]);
  }

  for (int round = 0; round < ROUNDS; ++round) {
    /* The next duplicate of the world. */
    revoke_and_free(rank);
    MPI_Comm next = dup_returning(MPI_COMM_WORLD);
    int ok = works(next, size);
    CHECK(everywhere(ok), "round %d: a duplicate made after a revoked one was freed failed at some rank", round);
    MPI_Comm_free(&next);

    /* Revoked as soon as it exists: the notice counts wherever it lands. */
    MPI_Comm early = dup_returning(MPI_COMM_WORLD);
    if (rank == 0) {
      CHECK(MPIX_Comm_revoke(early) == MPI_SUCCESS, "revoke");
    } else {
      /* Polled, so that a notice lost here fails the test instead of hanging it. */
      int value = 0, done = 0;
      MPI_Request r = MPI_REQUEST_NULL;
      int err = MPI_Irecv(&value, 1, MPI_INT, 0, 3, early, &r);
      double start = MPI_Wtime();
      while (err == MPI_SUCCESS && !done) {
        err = MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        CHECK(MPI_Wtime() - start < MT_POLL_LIMIT_S, "round %d: the revoked communicator's receive never ended", round);
      }
      CHECK(error_class(err) == MPIX_ERR_REVOKED, "round %d: a receive on a revoked communicator ended with class %d",
            round, error_class(err));
    }
    MPI_Comm_free(&early);
  }

  /* Revoked before the MPI_Comm_idup that makes it completes (erroneous:
   * it has no context id yet): MPI_ERR_COMM, and nothing revoked. */
  MPI_Comm parent = dup_returning(MPI_COMM_WORLD), pending;
  MPI_Request made;
  MPI_Comm_idup(parent, &pending, &made);
  if (rank == 0) {
    int err = MPIX_Comm_revoke(pending);
    CHECK(error_class(err) == MPI_ERR_COMM, "revoke before the idup completed: class %d, not MPI_ERR_COMM",
          error_class(err));
  }
  MPI_Wait(&made, MPI_STATUS_IGNORE);
  CHECK(everywhere(works(pending, size)), "the idup's communicator failed after a refused revoke");
  MPI_Comm_free(&pending);
  MPI_Comm_free(&parent);

  MPI_Group_free(&others_group);
  MPI_Group_free(&world_group);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  MPI_Finalize();
  return 0;
}
