// Synchronization (MPI-4.0 §12.5): the epochs an origin's operations live
// in and how each ends.
//
// Operations on a target reached directly (rma/window.h) are complete when
// their call returns, so ending an epoch is a memory fence plus whatever
// tells the other side: a barrier (fence), a message (post, complete), a
// store to the lock word (unlock). Operations sent as active messages are
// complete when acknowledged, so every epoch end first waits for those
// (Service::flush).
//
// Erroneous use is MPI_ERR_RMA_SYNC naming the call, never a hang: an
// operation outside any epoch that includes its target, unlock without
// lock, a second lock on one target, complete without start, wait without
// post.
#pragma once

#include "base/error.h"
#include "base/group.h"
#include "rma/window.h"

namespace ferry::rma {

// Whether an operation may go to `target` now.
Err check_access(const Window& w, int target, const char* call);

Err fence(Window& w, int assert);
Err post(Window& w, const Group& g, int assert);
Err start(Window& w, const Group& g, int assert);
Err complete(Window& w);
Err wait(Window& w);
Err test(Window& w, bool* done);
Err lock(Window& w, int lock_type, int target, int assert);
Err unlock(Window& w, int target);
Err lock_all(Window& w, int assert);
Err unlock_all(Window& w);
Err flush(Window& w, int target);  // also flush_local: local completion is no weaker here
Err flush_all(Window& w);
Err sync(Window& w);

// Every origin operation of this process on `w` complete (MPI_Win_free).
Err quiesce(Window& w);

}  // namespace ferry::rma
