// The application's checkpoint hooks (MPIX_Checkpoint_hook), in the order
// they were added. Process-wide, like MPI's error handlers: a program
// registers them once, usually right after MPI_Init.
#pragma once

#include <string>

#include "base/error.h"
#include "mpix.h"

namespace ferry::runtime::checkpoint_hooks {

Err add(MPIX_Checkpoint_fn* save, MPIX_Checkpoint_fn* restore, void* state);

// Runs every save (restore) hook with `dir`; the first that does not return
// MPI_SUCCESS stops the run and is named in the error.
Err run_save(MPI_Comm comm, const std::string& dir);
Err run_restore(MPI_Comm comm, const std::string& dir);

// Whether this thread is inside a hook: a hook that checkpoints or restores
// would start the protocol again from inside itself, on every rank, forever.
bool running();

}  // namespace ferry::runtime::checkpoint_hooks
