/*
 * A blocking MPI_Recv of contiguous host memory first tries to receive
 * without a request (p2p::begin_receive_now, issue 29). It must match as any
 * receive does (MPI-3.1 §3.5, non-overtaking; wildcards included):
 *
 *   A  posted ahead: an MPI_Irecv with MPI_ANY_SOURCE/MPI_ANY_TAG posted
 *      before the MPI_Recv takes the first message, the MPI_Recv the second.
 *   B  rendezvous ahead: a large message (rendezvous) then a small one (eager)
 *      with the same tag, received with wildcard MPI_Recvs, the receiver
 *      waiting before they arrive and again after both did: the large one
 *      comes first; the small one must not overtake it.
 *   C  many senders: every rank sends small messages to every rank; received
 *      with MPI_ANY_SOURCE/MPI_ANY_TAG, each sender's arrive in sequence.
 *   D  other communicators: a message on a duplicate sent first is not taken
 *      by a wildcard MPI_Recv on MPI_COMM_WORLD.
 *   E  probe and truncation: MPI_Probe of the second message leaves the first
 *      first; a receive too small reports MPI_ERR_TRUNCATE and the count.
 *
 * Ranks 2k and 2k+1 pair up; the last of an odd number pairs with itself.
 */
#define TEST_NAME "p2p_recv_inline_order"
#include "mpitest.h"

#include <time.h>

#define LARGE_INTS (256 * 1024 / 4) /* beyond shared memory's eager limit: rendezvous */
#define NC 32

static int rank, size, peer, self;

static void pause_ms(long ms) {
  struct timespec t = {0, ms * 1000 * 1000};
  nanosleep(&t, NULL);
}

/* Which side of the pair this rank plays (self: both). */
static int sends(void) { return self || rank % 2 == 0; }
static int receives(void) { return self || rank % 2 == 1; }

static void phase_posted_ahead(void) {
  int first = -1, second = -1;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;
  if (receives()) MPI_Irecv(&first, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
  MPI_Barrier(MPI_COMM_WORLD); /* the Irecv is posted before anything is sent */
  if (sends() && !self) pause_ms(10); /* the receiver waits in MPI_Recv meanwhile */
  if (sends())
    for (int i = 0; i < 2; i++) MPI_Send(&i, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
  if (receives()) {
    MPI_Recv(&second, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(first == 0 && second == 1,
          "phase A: the MPI_Irecv posted first got message #%d, the MPI_Recv after it #%d (expected #0, #1)", first,
          second);
  }
}

static void phase_rendezvous_ahead(int receiver_late) {
  int *large = mt_malloc(sizeof(int) * LARGE_INTS);
  MPI_Request req = MPI_REQUEST_NULL;
  if (sends()) {
    if (!self && !receiver_late) pause_ms(10); /* the receiver waits in MPI_Recv first */
    for (int i = 0; i < LARGE_INTS; i++) large[i] = i;
    MPI_Isend(large, LARGE_INTS, MPI_INT, peer, 9, MPI_COMM_WORLD, &req);
    int small[2] = {-1, 12345};
    MPI_Send(small, 2, MPI_INT, peer, 9, MPI_COMM_WORLD);
  }
  if (receives()) {
    int *buf = mt_malloc(sizeof(int) * LARGE_INTS);
    MPI_Status st;
    int n = -1;
    if (receiver_late && !self) pause_ms(20); /* both are here before the receive */
    MPI_Recv(buf, LARGE_INTS, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == LARGE_INTS && buf[0] == 0 && buf[LARGE_INTS - 1] == LARGE_INTS - 1,
          "phase B%s: the first wildcard MPI_Recv got %d ints (first %d), expected the large message (%d ints): the "
          "small one overtook it",
          receiver_late ? " (late)" : "", n, buf[0], LARGE_INTS);
    MPI_Recv(buf, LARGE_INTS, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 2 && buf[1] == 12345, "phase B%s: the second MPI_Recv got %d ints, expected the small message",
          receiver_late ? " (late)" : "", n);
    free(buf);
  }
  if (sends()) MPI_Wait(&req, MPI_STATUS_IGNORE);
  free(large);
}

static void phase_many_senders(void) {
  for (int seq = 0; seq < NC; seq++)
    for (int k = 0; k < size; k++) {
      int msg[2] = {rank, seq};
      MPI_Send(msg, 2, MPI_INT, (rank + k) % size, 200 + seq % 3, MPI_COMM_WORLD);
    }
  int *next = mt_malloc(sizeof(int) * (size_t)size);
  for (int s = 0; s < size; s++) next[s] = 0;
  for (int i = 0; i < NC * size; i++) {
    int msg[2] = {-1, -1};
    MPI_Status st;
    MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int s = st.MPI_SOURCE;
    CHECK(s >= 0 && s < size && msg[0] == s, "phase C: receive %d: source %d, message says %d", i, s, msg[0]);
    CHECK(msg[1] == next[s] && st.MPI_TAG == 200 + next[s] % 3,
          "phase C: receive %d from rank %d got message #%d (tag %d), expected #%d: a message overtook another", i, s,
          msg[1], st.MPI_TAG, next[s]);
    next[s]++;
  }
  free(next);
}

static void phase_other_communicator(void) {
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (sends()) {
    int a = 1, b = 2;
    if (!self) pause_ms(10);
    MPI_Send(&a, 1, MPI_INT, peer, 3, dup);
    MPI_Send(&b, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
  }
  if (receives()) {
    int got = -1;
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got == 2, "phase D: MPI_Recv on MPI_COMM_WORLD got %d, the duplicate's message (expected 2)", got);
    MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
    CHECK(got == 1, "phase D: MPI_Recv on the duplicate got %d (expected 1)", got);
  }
  MPI_Comm_free(&dup);
}

static void phase_probe_truncate(void) {
  if (sends()) {
    int one = 1, four[4] = {4, 4, 4, 4};
    MPI_Send(&one, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
    MPI_Send(four, 4, MPI_INT, peer, 2, MPI_COMM_WORLD);
  }
  if (receives()) {
    MPI_Status st;
    int buf[2] = {-1, -1}, n = -1, cls = -1;
    MPI_Probe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
    MPI_Recv(buf, 2, MPI_INT, st.MPI_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_TAG == 1 && buf[0] == 1, "phase E: after MPI_Probe of tag 2, MPI_Recv got tag %d (expected tag 1)",
          st.MPI_TAG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Recv(buf, 2, MPI_INT, peer, 2, MPI_COMM_WORLD, &st);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(rc, &cls);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(cls == MPI_ERR_TRUNCATE && n == 2 && buf[0] == 4 && buf[1] == 4,
          "phase E: 4 ints into 2: error class %d (expected MPI_ERR_TRUNCATE %d), count %d", cls, MPI_ERR_TRUNCATE, n);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  self = rank == size - 1 && size % 2 == 1;
  peer = self ? rank : rank ^ 1;
  phase_posted_ahead();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_rendezvous_ahead(0);
  MPI_Barrier(MPI_COMM_WORLD);
  phase_rendezvous_ahead(1);
  MPI_Barrier(MPI_COMM_WORLD);
  phase_many_senders();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_other_communicator();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_probe_truncate();
  mt_pass();
  MPI_Finalize();
  return 0;
}
