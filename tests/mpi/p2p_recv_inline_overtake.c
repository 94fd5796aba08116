/*
 * A blocking MPI_Recv that waits without a request (p2p::ReceiveNow) and is
 * matched by a rendezvous message must receive that message, even though it
 * goes on with a request to do so: a receive posted after the MPI_Recv began
 * must not take it in between (MPI-3.1 §3.5, non-overtaking).
 *
 * Rank 0 blocks in MPI_Recv(MPI_ANY_SOURCE or 1, tag 5) of a large buffer.
 * While it waits, an MPIX_Grequest poll_fn (run by every progress pass)
 * first tells rank 1 to send, so that the MPI_Recv is surely posted before
 * anything arrives, then MPI_Iprobes tag 5 and, once it sees a message,
 * posts MPI_Irecv(MPI_ANY_SOURCE, 5) from within the same pass. Rank 1
 * sends a large message (rendezvous) then one int, both tag 5. The MPI_Recv,
 * posted first, must get the large one, the poll_fn's MPI_Irecv the int.
 * Before the fix the rendezvous request was put back among the unexpected
 * while the MPI_Recv had no request yet, and the poll_fn's Irecv took it.
 */
#define TEST_NAME "p2p_recv_inline_overtake"
#include "mpitest.h"

#define LARGE_INTS (256 * 1024) /* beyond shared memory's eager limit: rendezvous */
#define ROUNDS 16

enum { kTagData = 5, kTagGo = 9 };

static int armed, told, posted, go = 1;
static MPI_Request go_request = MPI_REQUEST_NULL, inner = MPI_REQUEST_NULL;
static int *small_buf;

static int query_fn(void *extra, MPI_Status *s) {
  (void)extra;
  MPI_Status_set_elements(s, MPI_BYTE, 0);
  MPI_Status_set_cancelled(s, 0);
  s->MPI_SOURCE = MPI_UNDEFINED;
  s->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
static int free_fn(void *extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

/* Runs inside rank 0's MPI_Recv, in progress. */
static int poll_fn(void *extra, MPI_Status *s) {
  (void)extra;
  (void)s;
  if (!armed || posted) return MPI_SUCCESS;
  if (!told) {
    MPI_Isend(&go, 1, MPI_INT, 1, kTagGo, MPI_COMM_WORLD, &go_request);
    told = 1;
    return MPI_SUCCESS;
  }
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, kTagData, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  if (flag) {
    MPI_Irecv(small_buf, LARGE_INTS, MPI_INT, MPI_ANY_SOURCE, kTagData, MPI_COMM_WORLD, &inner);
    posted = 1;
  }
  return MPI_SUCCESS;
}

static void receive_round(int round, int *big) {
  int source = round % 2 == 0 ? MPI_ANY_SOURCE : 1;
  armed = 1;
  told = posted = 0;
  MPI_Status st, st2;
  int n = -1, n2 = -1;
  MPI_Recv(big, LARGE_INTS, MPI_INT, source, kTagData, MPI_COMM_WORLD, &st);
  armed = 0;
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(told, "round %d: the poll_fn never ran during MPI_Recv", round);
  MPI_Wait(&go_request, MPI_STATUS_IGNORE);
  if (!posted) MPI_Irecv(small_buf, LARGE_INTS, MPI_INT, MPI_ANY_SOURCE, kTagData, MPI_COMM_WORLD, &inner);
  MPI_Wait(&inner, &st2);
  MPI_Get_count(&st2, MPI_INT, &n2);
  CHECK(n == LARGE_INTS && n2 == 1 && big[LARGE_INTS - 1] == round && small_buf[0] == 42 + round,
        "round %d (source %d): OVERTAKEN: MPI_Recv (posted first) got %d ints, the poll_fn's MPI_Irecv "
        "(posted during it: %d) got %d ints",
        round, source, n, posted, n2);
}

static void send_round(int round, int *big) {
  MPI_Request r[2];
  int one = 42 + round, token = 0;
  MPI_Recv(&token, 1, MPI_INT, 0, kTagGo, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  big[LARGE_INTS - 1] = round;
  MPI_Isend(big, LARGE_INTS, MPI_INT, 0, kTagData, MPI_COMM_WORLD, &r[0]);
  MPI_Isend(&one, 1, MPI_INT, 0, kTagData, MPI_COMM_WORLD, &r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks, has %d", size);
  int *big = mt_malloc(LARGE_INTS * sizeof(int));
  small_buf = mt_malloc(LARGE_INTS * sizeof(int));
  MPI_Request grequest = MPI_REQUEST_NULL;
  if (rank == 0) MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, NULL, NULL, &grequest);
  for (int round = 0; round < ROUNDS; round++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
      receive_round(round, big);
    else
      send_round(round, big);
  }
  if (rank == 0) {
    MPI_Grequest_complete(grequest);
    MPI_Wait(&grequest, MPI_STATUS_IGNORE);
  }
  free(big);
  free(small_buf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
