/*
 * Communicators isolate traffic (MPI-3.1 §6.1.2): a message sent on one
 * never matches a receive on another with the same group, even with the
 * same source and tag and wildcard receives; collectives on a communicator
 * never match its point-to-point receives (§5.2).
 */
#define TEST_NAME "comm_isolation"
#include "mpitest.h"

#define NCOMMS 5
#define TAG 7

static int rank, size;

/* A message that was unexpected on a dup must not match a wildcard receive
 * on the parent posted afterwards. */
static void unexpected_on_dup(MPI_Comm parent, MPI_Comm dup) {
  if (size < 2) return;
  int a = 1000 + rank, b = 2000 + rank, got = -1;
  if (rank == 0) {
    MPI_Send(&a, 1, MPI_INT, 1, TAG, dup);
    MPI_Send(&b, 1, MPI_INT, 1, TAG, parent);
  } else if (rank == 1) {
    MPI_Status st;
    mt_wait_probe(0, TAG, dup, &st, "the message on the dup");  /* it is here, unexpected */
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, parent, &st);
    CHECK(got == 2000, "wildcard receive on the parent got %d, expected the parent's 2000 (the dup's is 1000)", got);
    int flag = 1;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, parent, &flag, &st);
    CHECK(!flag, "the parent still shows a message (the dup's?)");
    MPI_Recv(&got, 1, MPI_INT, 0, TAG, dup, &st);
    CHECK(got == 1000, "receive on the dup got %d, expected 1000", got);
  }
  MPI_Barrier(parent);
}

/* Every rank sends one message per communicator, same tag, to its right
 * neighbour; the receiver takes them in the opposite order, by wildcard. */
static void ring_on_many(MPI_Comm comms[NCOMMS]) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request reqs[NCOMMS];
  int out[NCOMMS];
  for (int c = 0; c < NCOMMS; c++) {
    out[c] = c * 100000 + rank;
    MPI_Isend(&out[c], 1, MPI_INT, right, TAG, comms[c], &reqs[c]);
  }
  for (int c = NCOMMS - 1; c >= 0; c--) {
    int got = -1;
    MPI_Status st;
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[c], &st);
    CHECK(got == c * 100000 + left, "communicator %d delivered %d, expected %d", c, got, c * 100000 + left);
    CHECK(st.MPI_TAG == TAG, "communicator %d: tag %d", c, st.MPI_TAG);
  }
  MPI_Waitall(NCOMMS, reqs, MPI_STATUSES_IGNORE);
}

/* A wildcard receive pending on a communicator sees none of its collectives' messages. */
static void collectives_beside_wildcard(MPI_Comm comm) {
  int got = -1, in = rank, sum = -1;
  MPI_Request req;
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req);
  MPI_Barrier(comm);
  MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, comm);
  CHECK(sum == size * (size - 1) / 2, "allreduce beside a wildcard receive gave %d", sum);
  MPI_Bcast(&in, 1, MPI_INT, 0, comm);
  CHECK(in == 0, "bcast beside a wildcard receive gave %d", in);
  int flag = 1;
  MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  CHECK(!flag, "the wildcard receive matched collective traffic (got %d)", got);
  MPI_Barrier(comm); /* nobody sends the real message before everybody tested */
  /* Now satisfy it with a real message from the right neighbour's left. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size, mine = 77 + rank;
  MPI_Send(&mine, 1, MPI_INT, right, 3, comm);
  MPI_Status st;
  MPI_Wait(&req, &st);
  CHECK(got == 77 + left && st.MPI_SOURCE == left && st.MPI_TAG == 3, "wildcard receive got %d from %d tag %d", got,
        st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm comms[NCOMMS];
  comms[0] = MPI_COMM_WORLD;
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  MPI_Comm_dup(comms[1], &comms[2]);
  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &comms[3]); /* same group, new context */
  MPI_Request idup_request;
  MPI_Comm_idup(comms[1], &comms[4], &idup_request);
  MPI_Wait(&idup_request, MPI_STATUS_IGNORE);
  for (int c = 0; c < NCOMMS; c++) {
    int result;
    MPI_Comm_compare(comms[0], comms[c], &result);
    CHECK(result == (c == 0 ? MPI_IDENT : MPI_CONGRUENT), "compare(world, communicator %d) = %d", c, result);
  }

  unexpected_on_dup(MPI_COMM_WORLD, comms[1]);
  unexpected_on_dup(comms[1], comms[2]);
  unexpected_on_dup(comms[3], MPI_COMM_WORLD);
  for (int i = 0; i < 3; i++) ring_on_many(comms);
  for (int c = 0; c < NCOMMS; c++) collectives_beside_wildcard(comms[c]);

  for (int c = 1; c < NCOMMS; c++) MPI_Comm_free(&comms[c]);
  mt_pass();
  MPI_Finalize();
  return 0;
}
