/*
 * A rank that passes 0 bytes to a collective while the others pass data
 * (erroneous: MPI-4.0 §6.1 wants equal type signatures) must not hang any
 * rank. A call with nothing to move returns at once where it may (MPI-3.1
 * §5.1, coll/at_once.h), but on a communicator with a shared-memory segment
 * (coll/shm) it still takes the operation's number and records its 0 bytes
 * there, so a rank that waits on it fails, naming the call, the rank and
 * both sizes (coll/shm/agreement.h), with MPI_ERR_OTHER (or MPI_ERR_TRUNCATE
 * where it passed more).
 *
 * Rank 0 passes one count, the others another, for each of bcast, reduce,
 * allreduce, gather, scatter, allgather, alltoall, reduce_scatter_block,
 * scan and exscan (root 0): 0 and a count that fits a cell, and 0 and one
 * that does not (messages, or a bcast, gather, reduce or scan streamed through cells).
 * Where a rank that passed data receives from a
 * rank that passed 0 (the data ranks read their cells, or agree on messages
 * first), it must fail; a rank whose own part needs nothing from the others
 * (a rank of 0 bytes, a bcast's root) may return at once and succeed. The
 * communicator must stay in step: its next bcast and allreduce run. Before
 * the fix the ranks with data waited for ever. Ferry only.
 */
#define TEST_NAME "zero_count_mismatch"
#include "../mpitest.h"

#define SMALL 100
#define BIG 5000

static int rank, size;
static int *sbuf, *rbuf;

#include "count_mismatch.h"

/* Whether rank `r`, having passed data, reads what a rank of 0 bytes
 * should have sent (so that it would wait for it): rank 0 passes `mine`,
 * the others `others`. */
static int must_fail(int op, int r, int mine, int others) {
  const int n = r == 0 ? mine : others;
  if (n == 0) return 0;
  /* Data too big for a cell (16 KiB): every rank with data agrees on messages first, but where ranks
   * share cores a bcast's root, the other ranks of a gather or reduce and a scan's rank 0 may stream it
   * through their cells instead (coll/shm/bcast.cc, gather.cc, reduce_stream.cc, scan_stream.cc) and,
   * reading nothing, succeed. */
  if (n == BIG)
    return !((op == kBcast && r == 0) || ((op == kGather || op == kReduce) && r != 0) ||
             ((op == kScan || op == kExscan) && r == 0));
  switch (op) {
    case kBcast:
    case kScatter: return r != 0;              /* the root only writes */
    case kReduce: case kGather: return r == 0; /* only the root reads */
    case kScan: case kExscan: return r != 0;   /* rank r reads ranks 0..r */
    default: return 1;
  }
}

static void disagree(MPI_Comm comm, int op, int mine, int others, const char *what) {
  const int n = rank == 0 ? mine : others;
  int rc = call(op, n, comm);
  if (rc != MPI_SUCCESS) {
    check_mismatch_error(rc, op, "passed 0 bytes", what);
  } else {
    CHECK(!must_fail(op, rank, mine, others), "%s, %s: rank %d passed %d ints and did not fail", names[op], what, rank,
          n);
  }
  check_still_in_step(comm, op, what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sbuf = mt_malloc(sizeof(int) * (size_t)BIG * (size_t)size);
  rbuf = mt_malloc(sizeof(int) * (size_t)BIG * (size_t)size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  if (size >= 2 && mt_is_ferry()) {
    for (int op = 0; op < kOps; op++) {
      for (int i = 0; i < BIG * size; i++) sbuf[i] = i;
      disagree(comm, op, 0, SMALL, "rank 0 passes 0, the others 100 ints");
      disagree(comm, op, SMALL, 0, "rank 0 passes 100 ints, the others 0");
      disagree(comm, op, 0, BIG, "rank 0 passes 0, the others 5000 ints");
      disagree(comm, op, BIG, 0, "rank 0 passes 5000 ints, the others 0");
    }
  }
  MPI_Comm_free(&comm);
  free(sbuf);
  free(rbuf);
  mt_pass();
  MPI_Finalize();
  return 0;
}
