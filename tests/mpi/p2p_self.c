/*
 * Messages a rank sends to itself, on MPI_COMM_WORLD (dest = own rank) and on
 * MPI_COMM_SELF (dest 0): every size up to 8 MiB, receive posted first or
 * message sent first, MPI_Sendrecv and MPI_Ssend to self, and isolation of
 * the two communicators: a message sent on one never matches a receive on
 * the other, even with the same source rank and tag.
 */
#define TEST_NAME "p2p_self"
#include "mpitest.h"

static const size_t sizes[] = {0, 1, 64, 4097, 65536, 1 << 20, 8 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void self_exchange(MPI_Comm comm, const char *cname, int me) {
  const size_t max = sizes[NSIZES - 1];
  unsigned char *sbuf = mt_malloc(max), *rbuf = mt_malloc(max);
  for (size_t k = 0; k < NSIZES; k++) {
    const size_t n = sizes[k];
    const uint32_t seed = mt_seed((uint32_t)me, (uint32_t)k, comm == MPI_COMM_SELF);
    MPI_Request req;
    MPI_Status st;
    char what[96];

    /* Send first (unexpected at the receiver), then receive. */
    snprintf(what, sizeof what, "%s: MPI_Isend then MPI_Recv of %zu B", cname, n);
    mt_fill(sbuf, n, seed);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, me, 1, comm, &req);
    MPI_Recv(rbuf, (int)max, MPI_BYTE, me, 1, comm, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_STATUS(st, me, 1, MPI_BYTE, (int)n, what);
    CHECK_PATTERN(rbuf, n, seed, "%s", what);

    /* Receive first, then a blocking send that matches it. */
    snprintf(what, sizeof what, "%s: MPI_Irecv then MPI_Send of %zu B", cname, n);
    mt_fill(sbuf, n, seed + 1);
    MPI_Irecv(rbuf, (int)max, MPI_BYTE, MPI_ANY_SOURCE, 2, comm, &req);
    MPI_Send(sbuf, (int)n, MPI_BYTE, me, 2, comm);
    MPI_Wait(&req, &st);
    CHECK_STATUS(st, me, 2, MPI_BYTE, (int)n, what);
    CHECK_PATTERN(rbuf, n, seed + 1, "%s", what);

    /* Synchronous send to self: legal because the receive is posted. */
    snprintf(what, sizeof what, "%s: MPI_Irecv then MPI_Ssend of %zu B", cname, n);
    mt_fill(sbuf, n, seed + 2);
    MPI_Irecv(rbuf, (int)max, MPI_BYTE, me, MPI_ANY_TAG, comm, &req);
    MPI_Ssend(sbuf, (int)n, MPI_BYTE, me, 3, comm);
    MPI_Wait(&req, &st);
    CHECK_STATUS(st, me, 3, MPI_BYTE, (int)n, what);
    CHECK_PATTERN(rbuf, n, seed + 2, "%s", what);

    /* MPI_Sendrecv to self never deadlocks (MPI-3.1 §3.10). */
    snprintf(what, sizeof what, "%s: MPI_Sendrecv to self of %zu B", cname, n);
    mt_fill(sbuf, n, seed + 3);
    MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, me, 4, rbuf, (int)max, MPI_BYTE, me, 4, comm, &st);
    CHECK_STATUS(st, me, 4, MPI_BYTE, (int)n, what);
    CHECK_PATTERN(rbuf, n, seed + 3, "%s", what);
  }
  free(sbuf);
  free(rbuf);
}

/* The same (source, tag) on two communicators: each receive gets the
 * message of its own communicator, whatever the order of the sends. Source
 * 0 on MPI_COMM_SELF is this very process, so a library that ignored the
 * communicator would mix the two up. */
static void check_isolation(int rank) {
  int world_val = 1000 + rank, self_val = 2000 + rank, got = -1;
  MPI_Request reqs[2];
  MPI_Status st;
  for (int round = 0; round < 2; round++) {
    /* Round 0: WORLD message first, SELF receive first; round 1: reversed. */
    if (round == 0) {
      MPI_Isend(&world_val, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &reqs[0]);
      MPI_Isend(&self_val, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &reqs[1]);
    } else {
      MPI_Isend(&self_val, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &reqs[1]);
      MPI_Isend(&world_val, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &reqs[0]);
    }
    for (int i = 0; i < 2; i++) {
      if ((i == 0) == (round == 0)) {
        got = -1;
        MPI_Recv(&got, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &st);
        CHECK(got == self_val, "round %d: receive on MPI_COMM_SELF got %d, expected %d", round,
              got, self_val);
        CHECK_STATUS(st, 0, 9, MPI_INT, 1, "receive on MPI_COMM_SELF");
      } else {
        got = -1;
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(got == world_val, "round %d: receive on MPI_COMM_WORLD got %d, expected %d",
              round, got, world_val);
        CHECK_STATUS(st, rank, 9, MPI_INT, 1, "receive on MPI_COMM_WORLD");
      }
    }
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  }

  /* A pending message on COMM_WORLD is invisible to probes on COMM_SELF. */
  int flag = 1;
  MPI_Isend(&world_val, 1, MPI_INT, rank, 10, MPI_COMM_WORLD, &reqs[0]);
  mt_wait_probe(rank, 10, MPI_COMM_WORLD, &st, "probe of a message to self");
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, &st);
  CHECK(!flag, "MPI_Iprobe on MPI_COMM_SELF saw a message sent on MPI_COMM_WORLD (tag %d)",
        st.MPI_TAG);
  MPI_Recv(&got, 1, MPI_INT, rank, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, self_rank = -1, self_size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
  MPI_Comm_size(MPI_COMM_SELF, &self_size);
  CHECK(self_rank == 0 && self_size == 1, "MPI_COMM_SELF: rank %d size %d, expected 0 and 1",
        self_rank, self_size);
  CHECK(rank >= 0 && rank < size, "MPI_COMM_WORLD: rank %d outside size %d", rank, size);

  self_exchange(MPI_COMM_WORLD, "MPI_COMM_WORLD", rank);
  self_exchange(MPI_COMM_SELF, "MPI_COMM_SELF", 0);
  check_isolation(rank);

  mt_pass();
  MPI_Finalize();
  return 0;
}
