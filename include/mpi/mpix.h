/*
 * Ferry's extensions to MPI, in the MPIX_ namespace. A program tests FERRY_MPIX before using them.
 */
#ifndef FERRY_MPIX_H
#define FERRY_MPIX_H

#include "mpi.h"

#define FERRY_MPIX 1

#if defined(__cplusplus)
extern "C" {
#endif
/* libmpi is built with hidden visibility; what this header declares is its interface (as in mpi.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/*
 * Checkpoint/restart (docs/architecture.md, "Checkpoints"; README "Making a program restartable").
 *
 * A program registers hooks that write its state to files in `dir` (save) and read it back (restore).
 * MPIX_Checkpoint runs every save hook on every process of comm, in registration order, each in that
 * process's own directory of a new epoch, and commits the epoch atomically: only if every hook on every
 * process returned MPI_SUCCESS does the epoch become the latest; otherwise every process gets an error
 * and the previous epoch stays the latest. MPIX_Restore runs every restore hook on the newest epoch that
 * verifies (*epoch = -1 when there is none, and no hook runs). Without FERRY_CHECKPOINT_DIR (mpirun
 * --checkpoint-dir) checkpoints go nowhere: MPIX_Checkpoint gives *epoch = -1, MPIX_Restore too.
 */
typedef int MPIX_Checkpoint_fn(MPI_Comm comm, const char *dir, void *state);
int MPIX_Checkpoint_hook(MPIX_Checkpoint_fn *save, MPIX_Checkpoint_fn *restore, void *state);
int MPIX_Checkpoint(MPI_Comm comm, int *epoch);    /* collective: run every save hook, commit atomically */
int MPIX_Checkpoint_due(MPI_Comm comm, int *flag); /* collective, cheap: has the launcher asked for one? */
int MPIX_Restore(MPI_Comm comm, int *epoch);       /* collective: restore hooks on the latest complete epoch */
int MPIX_Restart_count(int *count);                /* how many times the launcher restarted this job */

int PMPIX_Checkpoint_hook(MPIX_Checkpoint_fn *save, MPIX_Checkpoint_fn *restore, void *state);
int PMPIX_Checkpoint(MPI_Comm comm, int *epoch);
int PMPIX_Checkpoint_due(MPI_Comm comm, int *flag);
int PMPIX_Restore(MPI_Comm comm, int *epoch);
int PMPIX_Restart_count(int *count);

/*
 * GPU buffers (README "GPU buffers"): MPIX_Query_cuda_support() and MPIX_GPU_query_support() are
 * declared in mpi.h, as MPICH does; mpi-ext.h has Open MPI's MPIX_CUDA_AWARE_SUPPORT.
 */

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#if defined(__cplusplus)
}
#endif

#endif /* FERRY_MPIX_H */
