// The shared file pointer (MPI-3.1 §13.4.4): one pointer per open file,
// common to every process that opened it, on one host or many.
//
// Where it lives, and why. The pointer is a 16-byte record {value in
// etypes of the view, epoch} in a small hidden file beside the data file
// ("<dir>/.<name>.shfp.<16 hex digits>", the digits drawn by process 0 at
// MPI_File_open so that two opens of one file never share a pointer). A
// process advances it under an fcntl write lock on the record: lock, pread,
// pwrite, unlock (a read of it, MPI_File_get_position_shared, takes a read
// lock and writes nothing). That is ROMIO's design, chosen over the two
// others considered:
//  - the pointer held by one process (the owner) that answers fetch-and-add
//    messages: what Ferry had. With no progress thread the owner answers
//    only inside MPI, so a process's write_shared waited while the owner
//    computed (seconds, or for ever in a program whose owner reaches a
//    barrier only after the others' write_shared). A thread serving it
//    would have to take the progress engine's lock and poll every
//    transport (shared-memory rings have no descriptor to sleep on), and
//    would then progress everything else too: a progress thread by another
//    name, with its cost on every message.
//  - an atomic in shared memory per host with a fallback between hosts:
//    two mechanisms whose agreement (which one holds the truth after a
//    collective moves the pointer) is the hard part, for a call that does
//    file I/O anyway.
// The file lock needs no other process to do anything, is the same code on
// one host and many, and costs a few system calls next to the data access
// it precedes (docs/performance.md: a few us on a local file system). What
// it needs: locks that work across the hosts (NFS with a lock manager,
// Lustre mounted with flock, GPFS, BeeGFS; on one host any file system). A
// file system without them fails the call with
// MPI_ERR_UNSUPPORTED_OPERATION naming the call, the data file and the
// hidden one (README, "MPI-IO"). The hidden file is created at the first
// shared-pointer access that needs it (so a read-only directory only fails
// the calls that need it) and removed by MPI_File_close.
//
// Collective calls that set the pointer (seek_shared, set_view's reset,
// the ordered forms) must not let a process's later access see the old
// value, nor a slow process's earlier one see the new value, and should
// cost no more than the agreement they need anyway. So the pointer has
// epochs: every process counts the successful setting collectives on the
// file and knows the value its epoch starts from (each of these
// collectives ends with it known everywhere). The record names the epoch
// that wrote it; a record from an earlier epoch is stale and the epoch's
// start value stands instead, so a collective writes nothing to the file.
// A record is never from a later epoch: a process leaves a setting
// collective only after every process entered it, i.e. after every
// process's earlier accesses.
#pragma once

#include "base/error.h"
#include "io/file.h"
#include "mpi.h"

namespace ferry::io::shared_pointer {

// After a successful open, collective: process 0 names the hidden file and
// gives the pointer's initial value `initial` (etypes; its own, which
// MPI_MODE_APPEND puts at the end of the file); one broadcast.
Err start(File& f, MPI_Offset initial);
// MPI_File_close, after its agreement (nobody accesses the pointer any
// more), and a failed open: closes the hidden file; process 0 removes it.
// Local.
void stop(File& f);
// MPI_Finalize with the file still open: process 0 notes its hidden file,
// which after_finalize removes once the runtime has ended (when no process
// can access it any more; removing it earlier would let a process that has
// not opened it yet make a new one, at the wrong value). Local.
void finalize(File& f);
void after_finalize();

// Independent: *before is the pointer's value, which then grows by `add`
// etypes (atomically with respect to every other process's calls). With
// add 0 the pointer is only read (MPI_File_get_position_shared).
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

}  // namespace ferry::io::shared_pointer
