// The I/O worker: where nonblocking independent accesses (MPI_File_iread,
// _iwrite, _iread_at, _iwrite_at, _iread_shared, _iwrite_shared) run, so
// that they progress while the caller computes, without it re-entering MPI
// (MPI-3.1 §13.4.1 leaves that to the implementation; codes that overlap
// checkpoint writes with computation count on it).
//
// Collective IO queues its aggregators' block writes and reads here too
// (start_task; io/block_pipeline.h), to overlap them with the next round's
// exchange.
//
// One thread per process, started by the first such call, runs the queued
// accesses one after another in the order they were started: a bounded
// worker, never a thread per request. A pread/pwrite cannot be driven a
// little at a time from the progress engine's polls the way a message can,
// and POSIX AIO is itself a user-space thread pool in glibc; one thread of
// our own, reusing its job slots, allocates nothing per request once warm.
//
// Completion reaches MPI through the progress engine: the worker puts the
// finished job on a list and writes an eventfd, which is a progress source
// (progress/source.h), so a waiting MPI_Wait sleeping in the kernel wakes at
// once. The source fills the request's status and completes it with the
// engine lock held, as every request completes.
//
// The worker only reads the file's descriptor and view: MPI requires the
// requests on a file to be complete before MPI_File_set_view or
// MPI_File_close (§13.3, §13.2.2); close waits for them anyway rather than
// leave the worker a dangling file.
#pragma once

#include "base/error.h"
#include "base/request.h"
#include "io/access.h"
#include "io/file.h"

namespace ferry::io::worker {

// Queues the access of `buffer` at etype offset `offset` of `f`'s view
// (already resolved from a file pointer or given explicitly, and already
// checked with io::check_access) and returns its request, complete once
// the access is done, with the bytes moved in its status (MPI_Get_count)
// or the access's error.
// `call` ("MPI_File_iwrite_at") starts the error message the wait reports.
Err start(File& f, const char* call, Direction direction, MPI_Offset offset, const Buffer& buffer, Request** out);

// A nonblocking independent access, checked now (its errors are the
// call's), queued on the worker: at `offset` for kExplicitOffset, at the
// individual file pointer for kIndividualPointer, which moves past the
// whole request at once (§13.4.3: as if the access had completed; a read
// that meets the end of the file still reports its shorter count).
Err start_access(File& f, const char* call, Direction direction, Where where, MPI_Offset offset,
                 const Buffer& buffer, Request** out);

// Work of the runtime's own for the worker, run in the same queue after
// what was started before it: collective IO's block transfers
// (io/block_pipeline.h), the pwrite of one round's block while the next
// round's data is exchanged. run() must not call into MPI or the engine.
class Task {
 public:
  virtual ~Task() = default;
  virtual void run() = 0;
};

// Queues `task` (kept alive by the caller until the request completes) and
// returns its request, complete once run() has returned; the caller waits
// for it and releases it (requests::release). Its results are the task's.
Err start_task(File& f, Task* task, Request** out);

// Waits until no access of `f` is queued or running (MPI_File_close,
// MPI_File_set_view).
void drain(File& f);

}  // namespace ferry::io::worker
