/*
 * MPIX_Checkpoint_due answers 1 on every rank at the same call once the
 * launcher's event (common/checkpoint_event.h) reached any one rank, and 0
 * again after a checkpoint. mpirun raises the event towards all ranks; here
 * rank 0 raises it to itself alone (PMIX_RANGE_PROC_LOCAL), the hardest case
 * for the agreement: only one rank knows.
 */
#define TEST_NAME "checkpoint_due"
#include "mpitest.h"

#include <mpix.h>
#include <pmix.h>

/* ferry::checkpoint::kDueEvent of common/checkpoint_event.h, a C++ header. */
#define CHECKPOINT_DUE_EVENT (PMIX_EXTERNAL_ERR_BASE - 101)

static volatile int notified;
static void done(pmix_status_t status, void *cbdata) {
  (void)status;
  (void)cbdata;
  notified = 1;
}

static int save(MPI_Comm comm, const char *dir, void *state) { return MPI_SUCCESS; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, flag = -1, epoch;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPIX_Checkpoint_hook(save, NULL, NULL);
  CHECK_MPI(MPIX_Checkpoint_due(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0, "a checkpoint is due before anyone asked (%d)", flag);

  if (rank == 0) {
    pmix_proc_t me;
    CHECK(PMIx_Init(&me, NULL, 0) == PMIX_SUCCESS, "PMIx_Init in the test");
    pmix_status_t rc = PMIx_Notify_event(CHECKPOINT_DUE_EVENT, &me, PMIX_RANGE_PROC_LOCAL, NULL, 0, done, NULL);
    CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "PMIx_Notify_event: %s", PMIx_Error_string(rc));
  }
  /* The event arrives on PMIx's thread some time later: every rank keeps
   * asking, and all must see the 1 at the same call. */
  int calls = 0;
  double start = MPI_Wtime();
  do {
    CHECK_MPI(MPIX_Checkpoint_due(MPI_COMM_WORLD, &flag));
    ++calls;
    CHECK(MPI_Wtime() - start < MT_POLL_LIMIT_S, "the checkpoint request never arrived");
  } while (!flag);
  int low, high;
  MPI_Allreduce(&calls, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&calls, &high, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(low == high, "ranks saw the request at different calls (%d to %d)", low, high);
  CHECK_MPI(MPIX_Checkpoint_due(MPI_COMM_WORLD, &flag));
  CHECK(flag == 1, "the request was forgotten before a checkpoint");
  CHECK_MPI(MPIX_Checkpoint(MPI_COMM_WORLD, &epoch));
  CHECK_MPI(MPIX_Checkpoint_due(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0, "still due after the checkpoint");
  if (rank == 0) PMIx_Finalize(NULL, 0);
  MPI_Finalize();
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  return 0;
}
