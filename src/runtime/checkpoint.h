// Checkpoint/restart (issue 15): the application's hooks, coordinated over a
// communicator and committed atomically to the store of fault/store.h.
//
// MPIX_Checkpoint is a two-phase commit, as SCR's and Horovod elastic's:
//   0. a consistent cut: no operation may be in flight on the communicator
//      (else the state the hooks save and the messages in flight disagree);
//   1. every rank runs the save hooks in its own directory of the new epoch,
//      then seals what they wrote (fault/seal.h: checksums read from the
//      page cache while the disk writes, fdatasync, fsync of directories);
//      rank 0 fsyncs the store's root beside it, on a helper thread;
//   2. only if every rank succeeded does rank 0 collect the file lists and
//      publish the manifest (atomic rename, fsync of the epoch directory).
// A failure anywhere leaves the previous epoch the latest and returns the
// same error (naming the failing rank) on every rank. Cost over writing the
// same bytes with write + fsync: one read for the checksum (overlapping the
// disk's writes), one fsync per directory, the manifest's two fsyncs, and
// four small collectives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/error.h"
#include "mpix.h"

namespace ferry::runtime::checkpoint {

// MPIX_Checkpoint_hook: hooks run in the order they were added.
Err add_hook(MPIX_Checkpoint_fn* save, MPIX_Checkpoint_fn* restore, void* state);

// MPIX_Checkpoint over `c` (`handle` is what the hooks receive). *epoch is
// the committed epoch, or -1 when FERRY_CHECKPOINT_DIR is empty.
Err take(Communicator* c, MPI_Comm handle, int* epoch);

// MPIX_Checkpoint_due: 1 on every rank if the launcher's request
// (pmi/checkpoint_request.h) reached any of them. One allreduce.
Err due(Communicator* c, int* flag);

// MPIX_Restore: the newest epoch that verifies (or FERRY_RESTART_FROM's),
// restored by every rank's restore hooks; *epoch = -1 when there is none.
Err restore(Communicator* c, MPI_Comm handle, int* epoch);

// MPI_Finalize: waits until the epochs a checkpoint retired are removed
// (that runs on a thread of its own, beside the application).
void finish_background_work();

// MPIX_Restart_count: FERRY_RESTART_COUNT, else Slurm's SLURM_RESTART_COUNT.
int restart_count();

// The same commit and restore with node-local stores and partner copies
// (FERRY_CHECKPOINT_REDUNDANCY=partner; runtime/checkpoint_partner.cc):
// take() and restore() hand over to these.
Err take_partnered(Communicator* c, MPI_Comm handle, int* epoch);
Err restore_partnered(Communicator* c, MPI_Comm handle, int* epoch);

// Steps both kinds of store share.
// Phase 0 of a commit: MPI_ERR_PENDING when a request is active on `c`.
Err check_cut(Communicator* c);
// Phase 2 of a commit: every rank's `file` lines, in rank order, at rank 0.
Err gather_files(Communicator* c, const std::string& mine, std::string* all);
// Removes retired epochs on a thread of their own (joined by the next call
// and by finish_background_work).
void remove_in_background(std::vector<std::string> paths);
// FERRY_RESTART_FROM: -1 for "latest", else the epoch asked for.
Err wanted_epoch(int64_t* wanted);
// Rank 0's warning for an epoch passed over at restore.
void warn_skipped(int64_t epoch, const std::string& why);

}  // namespace ferry::runtime::checkpoint
