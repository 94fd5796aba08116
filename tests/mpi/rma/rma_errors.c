/* Erroneous RMA gets the right error class and a message naming the call,
 * through the window's error handler (MPI-4.0 §12.6), never a hang. */
#define TEST_NAME "rma_errors"
#include "../mpitest.h"

static int handler_calls = 0;
static void on_error(MPI_Win *win, int *code, ...) {
  (void)win;
  (void)code;
  ++handler_calls;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *mem;
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int v = 1;
  mt_expect_error(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "MPI_Put", "put outside an epoch");
  mt_expect_error(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock", "unlock without lock");
  mt_expect_error(MPI_Win_lock(999, 0, 0, win), MPI_ERR_LOCKTYPE, "MPI_Win_lock", "bad lock type");
  mt_expect_error(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete", "complete without start");
  mt_expect_error(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "MPI_Win_wait", "wait without post");
  mt_expect_error(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_all", "flush_all outside an epoch");
  mt_expect_error(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_local_all", "flush_local_all outside an epoch");
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS, "flush_all with a lock held failed");
  mt_expect_error(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock", "second lock on one target");
  mt_expect_error(MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, "MPI_Put", "put past the window");
  mt_expect_error(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK, "MPI_Put", "bad target rank");
  mt_expect_error(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP, "MPI_Accumulate", "null op");
  mt_expect_error(MPI_Win_free(&win), MPI_ERR_RMA_SYNC, "MPI_Win_free", "free with a lock held");
  MPI_Win_unlock(0, win);
  mt_expect_error(MPI_Win_fence(-1, win), MPI_ERR_ASSERT, "MPI_Win_fence", "bad assert");
  /* A user's handler is called with the window. */
  MPI_Errhandler eh;
  MPI_Win_create_errhandler(on_error, &eh);
  MPI_Win_set_errhandler(win, eh);
  MPI_Errhandler_free(&eh);
  MPI_Win_unlock(0, win);
  CHECK(handler_calls == 1, "the window's handler ran %d times", handler_calls);
  MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
  CHECK(handler_calls == 2, "MPI_Win_call_errhandler: the handler ran %d times", handler_calls);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  /* Keyvals and attributes. */
  int keyval;
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &keyval, NULL);
  MPI_Win_set_attr(win, keyval, &v);
  int *got, flag;
  MPI_Win_get_attr(win, keyval, &got, &flag);
  CHECK(flag && got == &v, "attribute");
  MPI_Win_delete_attr(win, keyval);
  MPI_Win_get_attr(win, keyval, &got, &flag);
  CHECK(!flag, "deleted attribute still there");
  MPI_Win_free_keyval(&keyval);
  MPI_Win_free(&win);
  mt_pass();
  MPI_Finalize();
  return 0;
}
