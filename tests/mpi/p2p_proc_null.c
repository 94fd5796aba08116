/*
 * MPI_PROC_NULL (MPI-3.1 §3.11): every send to it succeeds at once and
 * every receive from it completes at once with source MPI_PROC_NULL, tag
 * MPI_ANY_TAG, count 0, leaving the buffer alone. Also the usual use: a
 * non-periodic shift where the ends talk to MPI_PROC_NULL.
 */
#define TEST_NAME "p2p_proc_null"
#include "mpitest.h"

#define N 8

static int untouched(const int *buf) {
  for (int i = 0; i < N; i++)
    if (buf[i] != 555 + i) return 0;
  return 1;
}

static void reset(int *buf) {
  for (int i = 0; i < N; i++) buf[i] = 555 + i;
}

static void sends_and_receives(void) {
  int buf[N];
  MPI_Status st;
  MPI_Request req;
  reset(buf);

  /* Every send mode to MPI_PROC_NULL returns at once. */
  MPI_Send(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
  MPI_Ssend(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
  MPI_Rsend(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
  MPI_Bsend(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD); /* no buffer attached: none used */
  MPI_Isend(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Issend(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req);
  mt_wait_test(&req, MPI_STATUS_IGNORE, "MPI_Issend to MPI_PROC_NULL");
  CHECK(untouched(buf), "a send to MPI_PROC_NULL changed the send buffer");

  MPI_Recv(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
  CHECK_PROC_NULL_STATUS(st, "MPI_Recv(MPI_PROC_NULL)");
  CHECK(untouched(buf), "MPI_Recv(MPI_PROC_NULL) wrote to the buffer");

  MPI_Recv(buf, N, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  CHECK_PROC_NULL_STATUS(st, "MPI_Recv(MPI_PROC_NULL, MPI_ANY_TAG)");

  MPI_Irecv(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, &st);
  CHECK_PROC_NULL_STATUS_NB(st, "MPI_Irecv(MPI_PROC_NULL) + MPI_Wait");
  CHECK(untouched(buf), "MPI_Irecv(MPI_PROC_NULL) wrote to the buffer");

  int flag = 0;
  MPI_Irecv(buf, N, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req);
  MPI_Test(&req, &flag, &st);
  CHECK(flag, "MPI_Test of MPI_Irecv(MPI_PROC_NULL) is not complete at once");
  CHECK_PROC_NULL_STATUS_NB(st, "MPI_Irecv(MPI_PROC_NULL) + MPI_Test");

  /* Sendrecv with MPI_PROC_NULL on one side or both. */
  int other[N];
  reset(other);
  MPI_Sendrecv(other, N, MPI_INT, MPI_PROC_NULL, 2, buf, N, MPI_INT, MPI_PROC_NULL, 2,
               MPI_COMM_WORLD, &st);
  CHECK_PROC_NULL_STATUS(st, "MPI_Sendrecv(MPI_PROC_NULL, MPI_PROC_NULL)");
  CHECK(untouched(buf), "MPI_Sendrecv from MPI_PROC_NULL wrote to the buffer");
  MPI_Sendrecv_replace(buf, N, MPI_INT, MPI_PROC_NULL, 3, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
  CHECK_PROC_NULL_STATUS(st, "MPI_Sendrecv_replace(MPI_PROC_NULL, MPI_PROC_NULL)");
  CHECK(untouched(buf), "MPI_Sendrecv_replace with MPI_PROC_NULL changed the buffer");
}

/* Non-periodic shift to the right: rank 0 receives from MPI_PROC_NULL and
 * the last rank sends to it. */
static void open_chain_shift(int rank, int size) {
  const int dest = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  const int source = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int out[N], in[N];
  MPI_Status st;
  for (int i = 0; i < N; i++) out[i] = rank * 100 + i;
  reset(in);
  MPI_Sendrecv(out, N, MPI_INT, dest, 4, in, N, MPI_INT, source, 4, MPI_COMM_WORLD, &st);
  if (source == MPI_PROC_NULL) {
    CHECK_PROC_NULL_STATUS(st, "MPI_Sendrecv at the start of an open chain");
    CHECK(untouched(in), "MPI_Sendrecv from MPI_PROC_NULL wrote to the buffer");
  } else {
    CHECK_STATUS(st, source, 4, MPI_INT, N, "MPI_Sendrecv along an open chain");
    for (int i = 0; i < N; i++)
      CHECK(in[i] == source * 100 + i, "open chain: element %d is %d, expected %d", i, in[i],
            source * 100 + i);
  }

  /* The same with MPI_Sendrecv_replace. */
  for (int i = 0; i < N; i++) out[i] = rank * 1000 + i;
  MPI_Sendrecv_replace(out, N, MPI_INT, dest, 5, source, 5, MPI_COMM_WORLD, &st);
  for (int i = 0; i < N; i++) {
    const int want = source == MPI_PROC_NULL ? rank * 1000 + i : source * 1000 + i;
    CHECK(out[i] == want, "open chain, MPI_Sendrecv_replace: element %d is %d, expected %d", i,
          out[i], want);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  sends_and_receives();
  open_chain_shift(rank, size);

  mt_pass();
  MPI_Finalize();
  return 0;
}
