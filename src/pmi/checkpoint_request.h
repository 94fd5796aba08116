// The launcher's "a checkpoint is due" event (common/checkpoint_event.h),
// as one flag in this process.
//
// mpirun raises checkpoint::kDueEvent when --checkpoint-interval has passed
// or on SIGUSR1; PMIx delivers it on its own thread, so the handler only sets
// an atomic flag. MPIX_Checkpoint_due (runtime/checkpoint.h) reads it and
// agrees on it over a communicator, so that every rank sees the request at
// the same call even though the event reaches them at different times.
#pragma once

#include "base/error.h"

namespace ferry::pmi {

// Registers the handler (after PMIx_Init; nothing to do for a singleton).
Err watch_checkpoint_requests();
// Whether a request arrived since the last clear.
bool checkpoint_requested();
// After a checkpoint was committed: requests that arrived before are served.
void clear_checkpoint_request();

}  // namespace ferry::pmi
