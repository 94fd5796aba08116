/* An operation that fails at the target ends its passive-target epoch all
 * the same (MPI-4.0 §12.6: RMA errors may be reported at synchronization):
 * MPI_Win_unlock returns the error and the lock is released, so the origin
 * and everyone else can lock the target again. A dynamic window with
 * nothing attached at the address: the target's service refuses it at
 * unlock (active messages); a same-host origin's cross-memory copy to an
 * address mapped nowhere fails in the put itself. */
#define TEST_NAME "rma_error_unlock"
#include "../mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  int word = -1;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_attach(win, &word, sizeof word));
  MPI_Aint mine, *bases = mt_malloc((size_t)size * sizeof(MPI_Aint));
  MPI_Get_address(&word, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

  if (rank == 1) {
    /* Address 64: attached nowhere, mapped nowhere. */
    int v = 5;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    int err = MPI_Put(&v, 1, MPI_INT, 0, 64, 1, MPI_INT, win);
    int unlock_err = MPI_Win_unlock(0, win);
    if (err == MPI_SUCCESS) err = unlock_err;
    else CHECK(unlock_err == MPI_SUCCESS, "the put failed; unlock must still succeed");
    int cls = MPI_SUCCESS;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "put to unattached memory: error class %d", cls);
    /* The epoch is over: lock again and put where memory is attached. */
    v = 7;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, bases[0], 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* Everyone can take the lock on rank 0 (a lock left held would hang here). */
  int seen = 0;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
  CHECK_MPI(MPI_Get(&seen, 1, MPI_INT, 0, bases[0], 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(seen == 7, "rank 0's word is %d, expected 7", seen);
  MPI_Barrier(MPI_COMM_WORLD);

  CHECK_MPI(MPI_Win_detach(win, &word));
  MPI_Win_free(&win);
  free(bases);
  mt_pass();
  MPI_Finalize();
  return 0;
}
