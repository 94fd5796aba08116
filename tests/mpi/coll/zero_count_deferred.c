/*
 * A blocking collective with no data returns at once (MPI-3.1 §5.1,
 * coll/at_once.h) and, on a communicator with a shared-memory segment,
 * takes the operation's number without raising its flags there: they go up
 * at the rank's next use of the segment or its next pass of the progress
 * engine (coll/shm/segment.h, defer_nothing; issue 29). What must hold:
 *
 * - In step: runs of 0 to 40 empty calls of every kind (bcast, gather,
 *   scatter, allgather, alltoall, reduce, allreduce, reduce_scatter_block,
 *   reduce_scatter, scan, exscan) between real ones,
 *   blocking and nonblocking, keep the operations' numbers alike on every
 *   rank: each real bcast, allreduce and ibcast after them gives the right
 *   values.
 * - Never a hang: in an erroneous program, rank 0 passes 0 bytes to a bcast
 *   (its root), a scan, an exscan or a reduce_scatter(_block) where the
 *   others pass data, then waits somewhere else: for a message from rank 1
 *   on MPI_COMM_WORLD, or in a barrier on MPI_COMM_WORLD. The others read
 *   rank 0's flag for that call (every rank reads rank 0's input); they must
 *   fail (MPI_ERRORS_RETURN) and then send that message, or join that
 *   barrier. Without the engine raising the deferred flags, the others wait
 *   for rank 0's flag and rank 0 for them: the job hangs (FINISH_WITHIN).
 *   After it the communicator is in step. Ferry only (erroneous program).
 */
#define TEST_NAME "zero_count_deferred"
#include "../mpitest.h"

#define SMALL 100

static int rank, size;
static int *sbuf, *rbuf;

static const int zeros[64];

static void empty_call(int kind, MPI_Comm comm) {
  switch (kind % 11) {
    case 0: CHECK_MPI(MPI_Bcast(sbuf, 0, MPI_INT, kind % 3 % size, comm)); break;
    case 1: CHECK_MPI(MPI_Gather(sbuf, 0, MPI_INT, rbuf, 0, MPI_INT, 0, comm)); break;
    case 2: CHECK_MPI(MPI_Scatter(sbuf, 0, MPI_INT, rbuf, 0, MPI_INT, size - 1, comm)); break;
    case 3: CHECK_MPI(MPI_Allgather(sbuf, 0, MPI_INT, rbuf, 0, MPI_INT, comm)); break;
    case 4: CHECK_MPI(MPI_Alltoall(sbuf, 0, MPI_INT, rbuf, 0, MPI_INT, comm)); break;
    case 5: CHECK_MPI(MPI_Reduce(sbuf, rbuf, 0, MPI_INT, MPI_SUM, 0, comm)); break;
    case 6: CHECK_MPI(MPI_Allreduce(sbuf, rbuf, 0, MPI_INT, MPI_SUM, comm)); break;
    case 7: CHECK_MPI(MPI_Reduce_scatter_block(sbuf, rbuf, 0, MPI_INT, MPI_SUM, comm)); break;
    case 8: CHECK_MPI(MPI_Reduce_scatter(sbuf, rbuf, zeros, MPI_INT, MPI_SUM, comm)); break;
    case 9: CHECK_MPI(MPI_Scan(sbuf, rbuf, 0, MPI_INT, MPI_SUM, comm)); break;
    default: CHECK_MPI(MPI_Exscan(sbuf, rbuf, 0, MPI_INT, MPI_SUM, comm)); break;
  }
}

/* A real bcast from `root`, an allreduce and an ibcast, checked. */
static void real_calls(MPI_Comm comm, int round) {
  const int root = round % size;
  for (int i = 0; i < 16; i++) sbuf[i] = rank == root ? round * 100 + i : -1;
  CHECK_MPI(MPI_Bcast(sbuf, 16, MPI_INT, root, comm));
  for (int i = 0; i < 16; i++) CHECK(sbuf[i] == round * 100 + i, "round %d: bcast [%d] = %d", round, i, sbuf[i]);
  int mine = rank + round, sum = 0;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size * (size - 1) / 2 + size * round, "round %d: allreduce sum %d", round, sum);
  int v = rank == 0 ? round : -1;
  MPI_Request req;
  CHECK_MPI(MPI_Ibcast(&v, 1, MPI_INT, 0, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(v == round, "round %d: ibcast gave %d", round, v);
}

/* Rank 0 passes 0 ints to a call where the others pass SMALL (per rank):
 * `call` 0 a bcast of root 0, 1 a scan, 2 an exscan, 3 a
 * reduce_scatter_block, 4 a reduce_scatter. */
static int zero_on_rank_0(MPI_Comm comm, int call) {
  const int n = rank == 0 ? 0 : SMALL;
  static int counts[64];
  for (int r = 0; r < size && r < 64; r++) counts[r] = n / size;
  switch (call) {
    case 0: return MPI_Bcast(sbuf, n, MPI_INT, 0, comm);
    case 1: return MPI_Scan(sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
    case 2: return MPI_Exscan(sbuf, rbuf, n, MPI_INT, MPI_SUM, comm);
    case 3: return MPI_Reduce_scatter_block(sbuf, rbuf, n / size, MPI_INT, MPI_SUM, comm);
    default: return MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, comm);
  }
}

/* zero_on_rank_0; then rank 0 waits for the others elsewhere (`how`: 0 a
 * message, 1 a barrier). */
static void zero_root_then_wait(MPI_Comm comm, int how, int call) {
  const char *where = how == 0 ? "a receive" : "a barrier";
  int rc = zero_on_rank_0(comm, call);
  if (rank == 0) {
    CHECK(rc == MPI_SUCCESS, "call %d then %s: rank 0 with 0 bytes failed (%d)", call, where, rc);
  } else {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    msg[0] = 0;
    MPI_Error_class(rc, &cls);
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
    CHECK(rc != MPI_SUCCESS && (cls == MPI_ERR_OTHER || cls == MPI_ERR_TRUNCATE),
          "call %d then %s: rank %d passed %d ints against 0 on rank 0 and got class %d (\"%s\")", call, where,
          rank, SMALL, cls, msg);
  }
  if (how == 0) {
    int token = 7;
    if (rank == 0) CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    else if (rank == 1) CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  real_calls(comm, 1000 + 2 * call + how);
}

/* As zero_root_then_wait, but rank 0 makes `extra` more empty bcasts after
 * the erroneous one (up to more than the slots a rank may run ahead of
 * the others), on a communicator of its own, left out of step after it. Its
 * deferred arrivals must go up as far as the others have left, not wait
 * for them all to have left the last one: they wait on the first. */
static void zero_root_runs_ahead(int extra) {
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Barrier(comm)); /* makes the segment */
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  if (rank == 0) {
    for (int k = 0; k <= extra; k++)
      CHECK(MPI_Bcast(sbuf, 0, MPI_INT, 0, comm) == MPI_SUCCESS, "the root's empty bcast %d failed", k);
  } else {
    int rc = MPI_Bcast(sbuf, SMALL, MPI_INT, 0, comm);
    CHECK(rc != MPI_SUCCESS, "rank %d passed %d ints from a root of 0 ahead by %d calls and succeeded", rank, SMALL,
          extra);
  }
  int token = 7;
  if (rank == 0) CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  else if (rank == 1) CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Comm_free(&comm));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sbuf = mt_malloc(sizeof(int) * (size_t)SMALL * (size_t)size);
  rbuf = mt_malloc(sizeof(int) * (size_t)SMALL * (size_t)size);
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  /* The first blocking collective makes the segment (every rank waits). */
  CHECK_MPI(MPI_Barrier(comm));
  for (int round = 0; round < 41; round++) {
    for (int k = 0; k < round; k++) empty_call(k + round, comm);
    real_calls(comm, round);
  }
  /* Empty calls, then the communicator's nonblocking calls only. */
  for (int k = 0; k < 9; k++) empty_call(k, comm);
  int v = rank == size - 1 ? 42 : 0;
  MPI_Request req;
  CHECK_MPI(MPI_Ibcast(&v, 1, MPI_INT, size - 1, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(v == 42, "ibcast after empty calls gave %d", v);
  if (size >= 2 && mt_is_ferry()) {
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    for (int call = 0; call < 5; call++) {
      zero_root_then_wait(comm, 0, call);
      zero_root_then_wait(comm, 1, call);
    }
    zero_root_runs_ahead(2);
    zero_root_runs_ahead(20);
    zero_root_runs_ahead(140); /* beyond the 128 slots where ranks share cores */
  }
  CHECK_MPI(MPI_Comm_free(&comm));
  free(sbuf);
  free(rbuf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
