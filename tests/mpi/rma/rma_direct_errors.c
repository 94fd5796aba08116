/* Every bad argument of the calls that Ferry does in the entry point on one
 * host (rma/direct.h: MPI_Put, MPI_Get, MPI_Fetch_and_op,
 * MPI_Compare_and_swap, MPI_Win_flush, MPI_Win_flush_all) still gets its error class and a
 * message naming the call, inside an epoch where the same call with good
 * arguments takes that path; and the good call right after still works.
 * Ferry's classes: MPICH, for one, does not check a put's target range. */
#define TEST_NAME "rma_direct_errors"
#include "../mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Errors without a window go to MPI_COMM_WORLD's handler. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  long *mem;
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  for (int i = 0; i < 4; ++i) mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int target = (rank + 1) % size;
  long v = 5, r = 0, c = 0;
  MPI_Datatype uncommitted, two_longs;
  MPI_Type_contiguous(2, MPI_LONG, &uncommitted);
  MPI_Type_contiguous(2, MPI_LONG, &two_longs);
  MPI_Type_commit(&two_longs);

  /* No epoch yet. */
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, target, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put", "put, no epoch");
  mt_expect_error(MPI_Get(&r, 1, MPI_LONG, target, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Get", "get, no epoch");
  mt_expect_error(MPI_Fetch_and_op(&v, &r, MPI_LONG, target, 0, MPI_SUM, win), MPI_ERR_RMA_SYNC, "MPI_Fetch_and_op",
         "fetch_and_op, no epoch");
  mt_expect_error(MPI_Compare_and_swap(&v, &c, &r, MPI_LONG, target, 0, win), MPI_ERR_RMA_SYNC, "MPI_Compare_and_swap",
         "compare_and_swap, no epoch");
  mt_expect_error(MPI_Win_flush(target, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush", "flush, no epoch");
  mt_expect_error(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_all", "flush_all, no epoch");
  mt_expect_error(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_local_all", "flush_local_all, no epoch");
  mt_expect_error(MPI_Win_flush_all(MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Win_flush_all", "flush_all, MPI_WIN_NULL");

  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
  /* Put and Get. */
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, size, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Put", "put, bad rank");
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, -7, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Put", "put, negative rank");
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, target, -1, 1, MPI_LONG, win), MPI_ERR_DISP, "MPI_Put", "put, negative disp");
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, target, 4, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Put", "put, past the end");
  mt_expect_error(MPI_Put(&v, 2, MPI_LONG, target, 3, 2, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Put", "put, across the end");
  mt_expect_error(MPI_Put(&v, -1, MPI_LONG, target, 0, 1, MPI_LONG, win), MPI_ERR_COUNT, "MPI_Put", "put, origin count");
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, target, 0, -1, MPI_LONG, win), MPI_ERR_COUNT, "MPI_Put", "put, target count");
  mt_expect_error(MPI_Put(NULL, 1, MPI_LONG, target, 0, 1, MPI_LONG, win), MPI_ERR_BUFFER, "MPI_Put", "put, NULL buffer");
  mt_expect_error(MPI_Put(&v, 1, MPI_DATATYPE_NULL, target, 0, 1, MPI_LONG, win), MPI_ERR_TYPE, "MPI_Put", "put, null type");
  mt_expect_error(MPI_Put(&v, 1, uncommitted, target, 0, 2, MPI_LONG, win), MPI_ERR_TYPE, "MPI_Put", "put, uncommitted");
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, target, 0, 2, MPI_LONG, win), MPI_ERR_TYPE, "MPI_Put", "put, sizes differ");
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, target, 0, 1, MPI_LONG, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Put", "put, null win");
  mt_expect_error(MPI_Get(&r, 1, MPI_LONG, target, 4, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Get", "get, past the end");
  mt_expect_error(MPI_Get(NULL, 1, MPI_LONG, target, 0, 1, MPI_LONG, win), MPI_ERR_BUFFER, "MPI_Get", "get, NULL buffer");
  mt_expect_error(MPI_Get(&r, 1, MPI_LONG, size + 3, 0, 1, MPI_LONG, win), MPI_ERR_RANK, "MPI_Get", "get, bad rank");
  /* Fetch_and_op and Compare_and_swap. */
  mt_expect_error(MPI_Fetch_and_op(&v, &r, MPI_BYTE, target, 0, MPI_SUM, win), MPI_ERR_OP, "MPI_Fetch_and_op",
         "fetch_and_op, sum of bytes");
  mt_expect_error(MPI_Fetch_and_op(&v, &r, MPI_LONG, target, 0, MPI_OP_NULL, win), MPI_ERR_OP, "MPI_Fetch_and_op",
         "fetch_and_op, null op");
  mt_expect_error(MPI_Fetch_and_op(&v, NULL, MPI_LONG, target, 0, MPI_SUM, win), MPI_ERR_BUFFER, "MPI_Fetch_and_op",
         "fetch_and_op, NULL result");
  mt_expect_error(MPI_Fetch_and_op(&v, &r, MPI_LONG, target, 4, MPI_SUM, win), MPI_ERR_RMA_RANGE, "MPI_Fetch_and_op",
         "fetch_and_op, past the end");
  mt_expect_error(MPI_Fetch_and_op(&v, &r, MPI_LONG, size, 0, MPI_SUM, win), MPI_ERR_RANK, "MPI_Fetch_and_op",
         "fetch_and_op, bad rank");
  mt_expect_error(MPI_Fetch_and_op(&v, &r, MPI_DATATYPE_NULL, target, 0, MPI_SUM, win), MPI_ERR_TYPE, "MPI_Fetch_and_op",
         "fetch_and_op, null type");
  mt_expect_error(MPI_Compare_and_swap(&v, &c, &r, two_longs, target, 0, win), MPI_ERR_TYPE, "MPI_Compare_and_swap",
         "compare_and_swap, derived type");
  mt_expect_error(MPI_Compare_and_swap(&v, NULL, &r, MPI_LONG, target, 0, win), MPI_ERR_ARG, "MPI_Compare_and_swap",
         "compare_and_swap, NULL compare");
  mt_expect_error(MPI_Compare_and_swap(&v, &c, &r, MPI_LONG, target, -2, win), MPI_ERR_DISP, "MPI_Compare_and_swap",
         "compare_and_swap, negative disp");
  mt_expect_error(MPI_Win_flush(size, win), MPI_ERR_RANK, "MPI_Win_flush", "flush, bad rank");
  if (size > 1) {
    int other = (target + 1) % size;  /* locked by nobody here */
    if (other != target) {
      mt_expect_error(MPI_Put(&v, 1, MPI_LONG, other, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put", "put, unlocked rank");
      mt_expect_error(MPI_Win_flush(other, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush", "flush, unlocked rank");
    }
  }
  /* And the good calls still work (the target's element 1 is its own). */
  CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, target, 1, 1, MPI_LONG, win));
  CHECK_MPI(MPI_Win_flush(target, win));
  CHECK_MPI(MPI_Get(&r, 1, MPI_LONG, target, 1, 1, MPI_LONG, win));
  CHECK_MPI(MPI_Win_flush(target, win));
  CHECK(r == 5, "got %ld after putting 5", r);
  CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, target, 2, 1, MPI_LONG, win));
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Get(&r, 1, MPI_LONG, target, 2, 1, MPI_LONG, win));
  CHECK_MPI(MPI_Win_flush_local_all(win));
  CHECK(r == 5, "got %ld after putting 5 and flushing all", r);
  CHECK_MPI(MPI_Win_unlock(target, win));
  /* After the epoch: erroneous again. */
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, target, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC, "MPI_Put", "put after unlock");
  mt_expect_error(MPI_Win_flush(target, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush", "flush after unlock");
  mt_expect_error(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_all", "flush_all after unlock");
  /* A fence epoch, then one that NOSUCCEED closes. */
  CHECK_MPI(MPI_Win_fence(0, win));
  mt_expect_error(MPI_Put(&v, 1, MPI_LONG, target, 9, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE, "MPI_Put", "put in fence, range");
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  mt_expect_error(MPI_Fetch_and_op(&v, &r, MPI_LONG, target, 0, MPI_SUM, win), MPI_ERR_RMA_SYNC, "MPI_Fetch_and_op",
         "fetch_and_op after the last fence");
  MPI_Type_free(&uncommitted);
  MPI_Type_free(&two_longs);
  MPI_Win_free(&win);
  mt_pass();
  MPI_Finalize();
  return 0;
}
