// Partner copies of node-local checkpoints (issue 15; SCR's PARTNER scheme):
// who holds whose copy, and moving a rank's files to and from that rank.
//
// Files travel as a stream per rank (runtime/checkpoint_stream.h): the
// `file` lines of fault/manifest.h (path, size, CRC-32C), then the bytes of
// each file in that order, in pieces of a few MiB, so that memory does not
// grow with the checkpoint. The receiver checks every file's CRC-32C before
// it names it (write beside, fdatasync, rename, fsync the directories:
// fault/durable.h), so a copy is either whole and checked or absent.
// Messages use the internal point-to-point layer on the communicator's
// collective context: MPI_* is never re-entered and the program's messages
// never match them.
//
// Cost, per rank: reading its files once, their bytes to the partner (and
// back at restore for a rank that lost its own), the partner's write and
// fdatasync of the copy, and three small messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/communicator.h"
#include "base/error.h"
#include "fault/manifest.h"
#include "fault/store.h"

namespace ferry::runtime::checkpoint::copies {

// FERRY_CHECKPOINT_REDUNDANCY: *partner is whether it is `partner`; an
// error for anything but that and `none` (the same on every rank: they
// share the launcher's environment).
Err redundancy(bool* partner);

// Who is where over a communicator; the same on every rank.
struct Layout {
  std::vector<std::string> hosts;  // each rank's host (a fake one under FERRY_CHECKPOINT_TEST_RANKS_PER_HOST)
  std::vector<int> partner;        // the rank that holds each rank's copy (fault/partner.h)
  bool keeper = false;             // the lowest rank of its host: publishes and removes epochs there
  std::string root;                // this host's store: FERRY_CHECKPOINT_LOCAL_DIR, %h expanded
};

// Collective (one allgather of host names). Fails without a local
// directory or with fewer than two hosts; *out is filled either way.
Err layout(Communicator* c, Layout* out);

// Commit: sends this rank's sealed `files` of `epoch` to its partner, and
// writes durably, under <root>/epoch.N/partner/rank.<q>/, the copy of each
// rank q whose partner this rank is. `sealed` false: this rank's own phase
// failed; it sends nothing but still receives, so that no one waits for it.
// Collective.
Err send_to_partners(Communicator* c, const Layout& l, const fault::Store& store, int64_t epoch, bool sealed,
                     const std::vector<fault::FileEntry>& files);

// Restore: every rank whose own files of `m`'s epoch are missing or fail
// their check receives the copy from its partner (the one `m` records),
// checks it and writes it back into its own directory. Fails on a rank
// whose files and copy are both lost, naming its host and its partner's.
// Collective.
Err recover_from_partners(Communicator* c, const Layout& l, const fault::Store& store, const fault::Manifest& m);

}  // namespace ferry::runtime::checkpoint::copies
