/*
 * Collectives with nothing to move, and collectives on one rank, finish at
 * once (MPI-3.1 §5.1: only MPI_Barrier promises to synchronise), while their
 * arguments are still checked.
 *
 * - 0 bytes: ranks 1..n-1 call each collective with a count of 0 before
 *   rank 0 does, then tell rank 0 they got through; rank 0 calls it only
 *   after hearing from all of them. A call that waited for rank 0 would
 *   never tell it (the test gives up after 10 s). The nonblocking forms
 *   must be complete at their first MPI_Test (in Ferry; MPICH's Ibcast is not).
 *   A barrier comes first: the blocking collective, of any size, that
 *   makes a communicator's shared-memory segment (coll/shm) waits for every
 *   rank; with FERRY_COLL_SHM_AFTER=0 (the test's) it is the first, and the
 *   empty calls after it never wait.
 * - Arguments: a count of 0 does not hide a bad root, datatype, op or
 *   request (MPI_ERRORS_RETURN on a duplicate of MPI_COMM_WORLD).
 * - One rank (MPI_COMM_SELF): every collective copies the input where the
 *   standard says, in place or not, through different datatypes, blocking
 *   and nonblocking (complete at the first MPI_Test).
 */
#define TEST_NAME "trivial_calls"
#include "../mpitest.h"

enum { BCAST, GATHER, SCATTER, ALLGATHER, ALLTOALL, ALLREDUCE, REDUCE, REDUCE_SCATTER_BLOCK, SCAN, EXSCAN, NCALLS };
static const char *names[NCALLS] = {"bcast", "gather", "scatter", "allgather", "alltoall",
                                    "allreduce", "reduce", "reduce_scatter_block", "scan", "exscan"};

/* Call `which` with a count of 0; nonblocking: its request in *req. */
static void call_empty(int which, int nonblocking, MPI_Comm comm, MPI_Request *req) {
  int s = 0, r = 0;
  switch (which) {
    case BCAST: nonblocking ? MPI_Ibcast(&s, 0, MPI_INT, 0, comm, req) : MPI_Bcast(&s, 0, MPI_INT, 0, comm); break;
    case GATHER:
      nonblocking ? MPI_Igather(&s, 0, MPI_INT, &r, 0, MPI_INT, 0, comm, req)
                  : MPI_Gather(&s, 0, MPI_INT, &r, 0, MPI_INT, 0, comm);
      break;
    case SCATTER:
      nonblocking ? MPI_Iscatter(&s, 0, MPI_INT, &r, 0, MPI_INT, 0, comm, req)
                  : MPI_Scatter(&s, 0, MPI_INT, &r, 0, MPI_INT, 0, comm);
      break;
    case ALLGATHER:
      nonblocking ? MPI_Iallgather(&s, 0, MPI_INT, &r, 0, MPI_INT, comm, req)
                  : MPI_Allgather(&s, 0, MPI_INT, &r, 0, MPI_INT, comm);
      break;
    case ALLTOALL:
      nonblocking ? MPI_Ialltoall(&s, 0, MPI_INT, &r, 0, MPI_INT, comm, req)
                  : MPI_Alltoall(&s, 0, MPI_INT, &r, 0, MPI_INT, comm);
      break;
    case ALLREDUCE:
      nonblocking ? MPI_Iallreduce(&s, &r, 0, MPI_INT, MPI_SUM, comm, req)
                  : MPI_Allreduce(&s, &r, 0, MPI_INT, MPI_SUM, comm);
      break;
    case REDUCE:
      nonblocking ? MPI_Ireduce(&s, &r, 0, MPI_INT, MPI_SUM, 0, comm, req)
                  : MPI_Reduce(&s, &r, 0, MPI_INT, MPI_SUM, 0, comm);
      break;
    case REDUCE_SCATTER_BLOCK:
      nonblocking ? MPI_Ireduce_scatter_block(&s, &r, 0, MPI_INT, MPI_SUM, comm, req)
                  : MPI_Reduce_scatter_block(&s, &r, 0, MPI_INT, MPI_SUM, comm);
      break;
    case SCAN:
      nonblocking ? MPI_Iscan(&s, &r, 0, MPI_INT, MPI_SUM, comm, req) : MPI_Scan(&s, &r, 0, MPI_INT, MPI_SUM, comm);
      break;
    default:
      nonblocking ? MPI_Iexscan(&s, &r, 0, MPI_INT, MPI_SUM, comm, req)
                  : MPI_Exscan(&s, &r, 0, MPI_INT, MPI_SUM, comm);
      break;
  }
}

static void empty_calls_do_not_wait(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) return;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int which = 0; which < NCALLS; which++) {
    for (int nonblocking = 0; nonblocking < 2; nonblocking++) {
      int token = which;
      MPI_Request req = MPI_REQUEST_NULL;
      if (rank != 0) {
        call_empty(which, nonblocking, MPI_COMM_WORLD, &req);
        if (nonblocking) {
          int flag = 0;
          MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
          /* Ferry's promise; MPICH's Ibcast waits for the root. */
          CHECK(flag || !mt_is_ferry(), "MPI_I%s of 0 elements not complete at its first MPI_Test", names[which]);
        }
        MPI_Send(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        if (nonblocking) MPI_Wait(&req, MPI_STATUS_IGNORE);
      } else {
        for (int from = 1; from < size; from++) {
          MPI_Request r;
          int got = -1, flag = 0;
          MPI_Irecv(&got, 1, MPI_INT, from, 1, MPI_COMM_WORLD, &r);
          double until = MPI_Wtime() + 10;
          while (!flag && MPI_Wtime() < until) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
          CHECK(flag, "%s %s of 0 elements on rank %d waited for rank 0 (no word after 10 s)",
                nonblocking ? "nonblocking" : "blocking", names[which], from);
          CHECK(got == which, "token %d, expected %d", got, which);
        }
        call_empty(which, nonblocking, MPI_COMM_WORLD, &req);
        if (nonblocking) MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
    }
  }
}

static void empty_calls_still_check_arguments(void) {
  int size, x = 0, y = 0, rc;
  MPI_Comm comm;
  /* MPICH skips some of these checks for a count of 0 (and asserts). */
  if (!mt_is_ferry()) return;
  MPI_Request req;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_size(comm, &size);
  int cls;
#define EXPECT_CLASS(call, expected)                                                  \
  do {                                                                                \
    rc = (call);                                                                      \
    MPI_Error_class(rc, &cls);                                                        \
    CHECK(cls == (expected), "%s gave class %d, expected %d", #call, cls, expected); \
  } while (0)
  EXPECT_CLASS(MPI_Bcast(&x, 0, MPI_INT, size, comm), MPI_ERR_ROOT);
  EXPECT_CLASS(MPI_Ibcast(&x, 0, MPI_INT, -5, comm, &req), MPI_ERR_ROOT);
  EXPECT_CLASS(MPI_Bcast(&x, 0, MPI_DATATYPE_NULL, 0, comm), MPI_ERR_TYPE);
  EXPECT_CLASS(MPI_Bcast(&x, -1, MPI_INT, 0, comm), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_Allreduce(&x, &y, 0, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP);
  EXPECT_CLASS(MPI_Reduce(&x, &y, 0, MPI_INT, MPI_SUM, size + 1, comm), MPI_ERR_ROOT);
  EXPECT_CLASS(MPI_Gather(&x, 0, MPI_INT, &y, 0, MPI_INT, size, comm), MPI_ERR_ROOT);
  EXPECT_CLASS(MPI_Iallgather(&x, 0, MPI_INT, &y, 0, MPI_INT, comm, NULL), MPI_ERR_ARG);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  EXPECT_CLASS(MPI_Bcast(&x, 1, MPI_INT, 1, MPI_COMM_SELF), MPI_ERR_ROOT);
  EXPECT_CLASS(MPI_Allreduce(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_SELF), MPI_ERR_TYPE);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_free(&comm);
}

/* The request of a nonblocking call on one rank: complete at the first test. */
static void done_at_once(MPI_Request *req, const char *what) {
  int flag = 0;
  MPI_Status st;
  MPI_Test(req, &flag, &st);
  CHECK(flag, "%s on MPI_COMM_SELF not complete at its first MPI_Test", what);
  CHECK(*req == MPI_REQUEST_NULL, "%s: request not freed by MPI_Test", what);
}

#define N 6
static void fill(int *a, int base) {
  for (int i = 0; i < N; i++) a[i] = base + i;
}
static void expect(const int *a, int base, const char *what) {
  for (int i = 0; i < N; i++) CHECK(a[i] == base + i, "%s: element %d is %d, expected %d", what, i, a[i], base + i);
}

static void one_rank_copies(void) {
  MPI_Comm c = MPI_COMM_SELF;
  int in[N], out[N], zero = 0, count = N;
  MPI_Request req;
  MPI_Datatype block; /* the N ints as one element */
  MPI_Type_contiguous(N, MPI_INT, &block);
  MPI_Type_commit(&block);
  for (int nb = 0; nb < 2; nb++) {
    const char *form = nb ? "nonblocking" : "blocking";
#define RUN(blocking_call, nonblocking_call, what)  \
  do {                                              \
    if (nb) {                                       \
      nonblocking_call;                             \
      done_at_once(&req, what);                     \
    } else {                                        \
      blocking_call;                                \
    }                                               \
  } while (0)
    fill(in, 10); memset(out, 0, sizeof out);
    RUN(MPI_Gather(in, N, MPI_INT, out, 1, block, 0, c), MPI_Igather(in, N, MPI_INT, out, 1, block, 0, c, &req), "gather");
    expect(out, 10, form);
    fill(in, 20); memset(out, 0, sizeof out);
    RUN(MPI_Scatter(in, 1, block, out, N, MPI_INT, 0, c), MPI_Iscatter(in, 1, block, out, N, MPI_INT, 0, c, &req), "scatter");
    expect(out, 20, form);
    fill(in, 30); memset(out, 0, sizeof out);
    RUN(MPI_Allgather(in, N, MPI_INT, out, N, MPI_INT, c), MPI_Iallgather(in, N, MPI_INT, out, N, MPI_INT, c, &req), "allgather");
    expect(out, 30, form);
    fill(in, 40); memset(out, 0, sizeof out);
    RUN(MPI_Alltoall(in, N, MPI_INT, out, 1, block, c), MPI_Ialltoall(in, N, MPI_INT, out, 1, block, c, &req), "alltoall");
    expect(out, 40, form);
    fill(out, 45);
    RUN(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, N, MPI_INT, c),
        MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, N, MPI_INT, c, &req), "alltoall in place");
    expect(out, 45, form);
    fill(in, 50); memset(out, 0, sizeof out);
    RUN(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, c), MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, c, &req), "allreduce");
    expect(out, 50, form);
    fill(out, 55);
    RUN(MPI_Allreduce(MPI_IN_PLACE, out, N, MPI_INT, MPI_MAX, c),
        MPI_Iallreduce(MPI_IN_PLACE, out, N, MPI_INT, MPI_MAX, c, &req), "allreduce in place");
    expect(out, 55, form);
    fill(in, 60); memset(out, 0, sizeof out);
    RUN(MPI_Reduce(in, out, N, MPI_INT, MPI_PROD, 0, c), MPI_Ireduce(in, out, N, MPI_INT, MPI_PROD, 0, c, &req), "reduce");
    expect(out, 60, form);
    fill(in, 70); memset(out, 0, sizeof out);
    RUN(MPI_Scan(in, out, N, MPI_INT, MPI_SUM, c), MPI_Iscan(in, out, N, MPI_INT, MPI_SUM, c, &req), "scan");
    expect(out, 70, form);
    fill(in, 80); memset(out, 0, sizeof out);
    RUN(MPI_Reduce_scatter_block(in, out, N, MPI_INT, MPI_SUM, c),
        MPI_Ireduce_scatter_block(in, out, N, MPI_INT, MPI_SUM, c, &req), "reduce_scatter_block");
    expect(out, 80, form);
    fill(in, 90); memset(out, 0, sizeof out);
    RUN(MPI_Reduce_scatter(in, out, &count, MPI_INT, MPI_SUM, c),
        MPI_Ireduce_scatter(in, out, &count, MPI_INT, MPI_SUM, c, &req), "reduce_scatter");
    expect(out, 90, form);
    /* v and w forms: displacement 1 (in elements; bytes for w). */
    int big[N + 1], one = 1, bytes_one = (int)sizeof(int), n = N, nm1 = N - 1;
    fill(in, 100); memset(big, 0, sizeof big);
    RUN(MPI_Gatherv(in, N, MPI_INT, big, &n, &one, MPI_INT, 0, c),
        MPI_Igatherv(in, N, MPI_INT, big, &n, &one, MPI_INT, 0, c, &req), "gatherv");
    expect(big + 1, 100, form);
    fill(big + 1, 110); memset(out, 0, sizeof out);
    RUN(MPI_Scatterv(big, &n, &one, MPI_INT, out, N, MPI_INT, 0, c),
        MPI_Iscatterv(big, &n, &one, MPI_INT, out, N, MPI_INT, 0, c, &req), "scatterv");
    expect(out, 110, form);
    fill(in, 120); memset(big, 0, sizeof big);
    RUN(MPI_Allgatherv(in, N, MPI_INT, big, &n, &one, MPI_INT, c),
        MPI_Iallgatherv(in, N, MPI_INT, big, &n, &one, MPI_INT, c, &req), "allgatherv");
    /* MPICH 4.0.2 puts a lone rank's block at displacement 0. */
    if (mt_is_ferry()) expect(big + 1, 120, form);
    fill(big + 1, 130); memset(out, 0, sizeof out);
    RUN(MPI_Alltoallv(big, &n, &one, MPI_INT, out, &n, &zero, MPI_INT, c),
        MPI_Ialltoallv(big, &n, &one, MPI_INT, out, &n, &zero, MPI_INT, c, &req), "alltoallv");
    expect(out, 130, form);
    MPI_Datatype ints = MPI_INT;
    fill(big + 1, 140); memset(out, 0, sizeof out);
    RUN(MPI_Alltoallw(big, &n, &bytes_one, &ints, out, &n, &zero, &ints, c),
        MPI_Ialltoallw(big, &n, &bytes_one, &ints, out, &n, &zero, &ints, c, &req), "alltoallw");
    expect(out, 140, form);
    /* A receive buffer too small still fails (MPI_ERR_TRUNCATE), here too. */
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Gather(in, N, MPI_INT, out, nm1, MPI_INT, 0, c);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "gather of %d ints into %d on one rank: class %d, expected MPI_ERR_TRUNCATE", N,
          N - 1, cls);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_ARE_FATAL);
    /* Nothing to wait for on one rank, and Exscan leaves recvbuf alone. */
    RUN(MPI_Barrier(c), MPI_Ibarrier(c, &req), "barrier");
    fill(out, 150);
    RUN(MPI_Exscan(in, out, N, MPI_INT, MPI_SUM, c), MPI_Iexscan(in, out, N, MPI_INT, MPI_SUM, c, &req), "exscan");
    expect(out, 150, form);
  }
  MPI_Type_free(&block);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  empty_calls_do_not_wait();
  empty_calls_still_check_arguments();
  one_rank_copies();
  MPI_Barrier(MPI_COMM_WORLD);
  mt_pass();
  MPI_Finalize();
  return 0;
}
