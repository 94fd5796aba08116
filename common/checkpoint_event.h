// How mpirun tells a job's ranks that a checkpoint is due (issue 15).
//
// mpirun (and each ferryd, for its host's ranks) raises this PMIx event when
// --checkpoint-interval has passed or mpirun got SIGUSR1. libmpi registers a
// handler for it at MPI_Init that only sets a flag; MPIX_Checkpoint_due then
// agrees on the flag over the communicator, so every rank answers 1 at the
// same call. PMIx reserves codes below PMIX_EXTERNAL_ERR_BASE for users.
#pragma once

#include <pmix_common.h>

namespace ferry::checkpoint {

inline constexpr pmix_status_t kDueEvent = PMIX_EXTERNAL_ERR_BASE - 101;

}  // namespace ferry::checkpoint
