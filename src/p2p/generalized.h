// Generalized requests (MPI-3.1 §12.2): operations that the program itself
// carries out, on its own threads, and reports with MPI_Grequest_complete.
// They wait and test like any request; MPI calls the program back to fill
// in their status (query_fn), to free its state (free_fn) and to cancel
// them (cancel_fn).
//
// The callbacks run with the engine lock held, as MPICH runs them inside its
// global critical section: they may call MPI (the lock is re-entrant), but
// must not wait for another thread's MPI call.
#pragma once

#include "base/request.h"
#include "mpi.h"

namespace ferry::generalized {

// MPI_Grequest_start: an active request, complete once complete() is called.
Request* start(const GeneralizedOps& ops);

// MPICH's extended generalized requests (MPIX_Grequest_start, MPICH 4.0.2):
// the progress engine calls poll_fn(extra_state, status) at every pass
// (MPI_Wait, MPI_Test, any call that polls) until poll_fn or another thread
// completes the request with MPI_Grequest_complete, so that an operation
// that needs polling completes without a thread of its own. wait_fn
// (MPICH's hook to block on several such requests at once) is accepted and
// never called: polling alone completes them.
Request* start_polled(const GeneralizedOps& ops, MPIX_Grequest_poll_function* poll_fn);

// MPIX_Grequest_class_create/_allocate: a set of callbacks made once and
// used for many requests. Class handles are never reused.
struct Class {
  GeneralizedOps ops;  // extra_state unused
  MPIX_Grequest_poll_function* poll = nullptr;
  MPIX_Grequest_wait_function* wait = nullptr;
};
int create_class(const Class& c);
// False if `handle` names no class.
bool find_class(int handle, Class* out);
// MPI_Grequest_complete (from any thread).
void complete(Request* r);
// The completion calls, on a completed generalized request: the status
// from query_fn, then free_fn. Returns the first error either returned.
// Engine lock held.
int finish(Request* r, MPI_Status* status);
// MPI_Request_get_status on a completed one: query_fn only. Engine lock held.
int query(Request* r, MPI_Status* status);
// MPI_Cancel: cancel_fn, told whether the operation has completed. Engine
// lock held.
int cancel(Request* r);
// MPI_Request_free: free_fn runs now; the request itself goes once the
// program completes it. Engine lock held.
int free(Request* r);

}  // namespace ferry::generalized
