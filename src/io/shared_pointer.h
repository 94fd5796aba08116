// The shared file pointer (MPI-3.1 §13.4.4): one pointer per open file,
// common to every process that opened it, on one host or many.
//
// Where it lives, and why. The pointer is a 64-bit counter (in etypes of the
// view) held by process 0 of the file's private communicator, the owner.
// Every other process advances it with one fetch-and-add: a 16-byte request
// to the owner and an 8-byte reply, on the internal point-to-point layer,
// which the owner's progress engine serves from a background task
// (progress/tasks.h). The owner's own calls change it in place. So a
// shared-pointer access costs one round trip, works across hosts with no
// shared memory and on any file system. ROMIO instead keeps the pointer in a
// hidden file under an fcntl byte-range lock: several system calls per
// access, serialised through the file server, and on NFS it needs a lock
// daemon that is often missing or slow.
//
// Limitation (documented in README, "MPI-IO"): Ferry has no progress thread,
// so the owner serves requests while it is inside any MPI call (a wait, a
// collective, a file access, MPI_Finalize...; a blocked wait sleeps on the
// transports and wakes for a request). A process whose shared-pointer call
// finds the owner computing outside MPI waits until the owner next enters
// MPI.
//
// Collective calls that set the pointer (seek_shared, set_view's reset, the
// ordered forms) must not let a process's later request see the old value,
// nor a slow process's earlier one see the new value, and should cost no
// more than the agreement they need anyway. So the pointer has epochs: every
// process counts the successful setting collectives on the file, and each
// request carries its sender's count. The owner sets the pointer once the
// agreement has ended on it (all earlier requests were answered before
// their senders joined it) and then enters the next epoch; a request from a
// process that is already there waits at the owner until the owner is too.
#pragma once

#include "base/error.h"
#include "io/file.h"
#include "mpi.h"

namespace ferry::io {

// Tags on the file's private communicator (point-to-point context) that
// the shared pointer uses; other traffic on that communicator must use
// other tags and never MPI_ANY_TAG.
constexpr int kSharedPointerRequestTag = 0x5f10;
constexpr int kSharedPointerReplyTag = 0x5f11;

namespace shared_pointer {

// After a successful open: the owner starts serving, with the pointer at
// `initial` (etypes). Local.
Err start(File& f, MPI_Offset initial);
// Before the private communicator goes (MPI_File_close, after its
// agreement: nobody asks any more): the owner stops serving. Local.
void stop(File& f);

// MPI_Finalize with the file still open (the program did not close it):
// the owner goes on answering until every other process has reached
// MPI_Finalize too, and each of those tells it so (one message). Without
// this the owner could stop progressing (in finalize's fence) while
// another process still waits for an answer.
void finalize(File& f);

// Independent: *before is the pointer's value, which then grows by `add`
// etypes (atomically with respect to every other process's calls).
Err fetch_and_add(File& f, MPI_Offset add, MPI_Offset* before);

// Collective forms. Each takes this process's outcome of its own checks
// (`local`) and agrees with the others on the result (io/agreement.h).
//
// MPI_File_seek_shared: every process passes the same offset and whence
// (MPI_ERR_NOT_SAME otherwise).
Err seek(File& f, MPI_Offset offset, int whence, Err local);
// The ordered forms (§13.4.4): process i's data starts after that of
// processes 0..i-1 in rank order; *start is where this process's `mine`
// etypes go, and the pointer moves past everybody's.
Err ordered_slot(File& f, MPI_Offset mine, MPI_Offset* start, Err local);
// MPI_File_set_view with MPI_DISPLACEMENT_CURRENT (§13.3), collective,
// after its agreement: *bytes is the file offset the shared pointer points
// at in the view being replaced.
Err current_byte_offset(File& f, MPI_Offset* bytes);
// After MPI_File_set_view succeeded on every process (its agreement): the
// pointer is 0 (§13.3).
void view_changed(File& f);

}  // namespace shared_pointer
}  // namespace ferry::io
