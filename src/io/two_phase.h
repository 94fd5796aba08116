// Two-phase collective buffering (MPI-3.1 §13.4.4 leaves the how to the
// implementation; this is the algorithm of del Rosario, Bordawekar and
// Choudhary, which ROMIO's ad_write_coll.c and ad_read_coll.c implement):
// the phases' interface. Each phase is one file, read top to bottom:
//
//   io/flatten.cc          1. each process's access as file runs, lazily
//   io/file_domains.cc     2. exchange ranges, choose aggregators, divide
//                             the file into their domains
//   io/collective.cc       5. per call: two-phase or direct access
//   io/two_phase_write.cc  3+4. rounds: send pieces to the aggregators,
//                             which write whole blocks (filling holes by
//                             reading them first)
//   io/two_phase_read.cc   the mirror image
//   io/block_pipeline.cc   the aggregator's two blocks: one on its way to
//                          (or from) the file on the I/O worker while the
//                          other takes the next round (double buffering)
//   io/round_messages.cc   the messages of a round, on the file's private
//                          communicator through the internal point-to-point
//                          layer (never through MPI_*)
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "io/access.h"
#include "io/collective.h"
#include "io/file.h"
#include "io/flatten.h"
#include "io/hints.h"

namespace ferry::io {

// What each process says about its access at the start of a collective
// call, and process 0's hints (the ones every process then uses, so that
// processes given different hints still compute the same plan).
enum : int64_t {
  kArgumentsFailed = 1,  // its arguments were wrong: nobody moves data
  kUnordered = 2,        // its view is not in file order (FlatAccess::ordered)
};
struct RankRange {
  int64_t flags;   // kArgumentsFailed, kUnordered
  int64_t first, end, bytes;
  int64_t host;    // the lowest world rank on its host
  int64_t cb_buffer_size, cb_nodes, per_host, use, striping_unit;
  int64_t double_buffer;  // 1: ferry_cb_double_buffer enable
  // The mean length of this process's contiguous pieces of the file (the
  // first few MiB of its access, adjacent runs joined); 0 where the file
  // is not on a local file system (collective.cc: large pieces go direct).
  int64_t local_piece;
};

// The mean length of the contiguous pieces in the first few MiB of
// `access` (0 for no bytes), and whether `fd`'s file system is a local one
// (ext4, XFS, Btrfs, tmpfs, F2FS, ZFS, overlayfs), where no other node
// shares its locks or caches.
// Pieces this long or longer, on a local file system, go direct even where
// the processes interleave (io/collective.cc says why).
constexpr uint64_t kDirectPiece = uint64_t{64} << 10;
// (The count stops early once the pieces are clearly shorter than that.)
uint64_t mean_piece(const FlatAccess& access);
bool on_local_file_system(int fd);

// The plan every process computes alike from all RankRanges.
struct Plan {
  std::vector<RankRange> ranges;  // by communicator rank
  uint64_t first = 0, end = 0;    // the aggregate access [first, end)
  uint64_t total_bytes = 0;
  std::vector<int> aggregators;   // communicator ranks, in domain order
  std::vector<uint64_t> domain_lo, domain_hi;
  // The aggregator's collective buffer, cb_buffer_size in all (see
  // plan_domains): one block per round in flight, `window` bytes each, and
  // a landing area of `landing` bytes (at least a window) where a round's
  // pieces from the other processes arrive (a write) or its replies to them
  // are packed (a read). Every message of a round is at most `landing`
  // bytes, so any access, overlapping ones included, fits it in batches.
  uint64_t window = 0;
  uint64_t landing = 0;
  bool double_buffered = false;   // io/block_pipeline.h
  int64_t rounds = 0;
  int my_domain = -1;             // this process's index in aggregators, or -1
  int hosts = 0;

  // Aggregator i's part of round k: [lo, hi), empty when lo >= hi.
  uint64_t window_lo(size_t i, int64_t k) const {
    return std::min(domain_hi[i], domain_lo[i] + static_cast<uint64_t>(k) * window);
  }
  uint64_t window_hi(size_t i, int64_t k) const {
    return std::min(domain_hi[i], domain_lo[i] + static_cast<uint64_t>(k + 1) * window);
  }
};

// Phase 2 (io/file_domains.cc): one allgather of this process's range (and
// `flags`), then the plan. Every process returns the same plan.
Err exchange_ranges(File& f, const FlatAccess& access, int64_t flags, Use use, RankRange* mine,
                    std::vector<RankRange>* all);
void plan_domains(File& f, std::vector<RankRange> ranges, Plan* plan);

// What an aggregator did, for FERRY_DEBUG=io and the final agreement.
struct AggregatorReport {
  uint64_t bytes = 0;     // written to (or read from) the file
  uint64_t syscalls = 0;  // pwrite/pread calls
  uint64_t holes_read = 0;
  // Time in the blocks' pwrite/pread calls, and the part of it the
  // aggregator spent waiting for them: the rest overlapped the exchange.
  uint64_t transfer_ns = 0, waited_ns = 0;
  // The most bytes of collective buffer (blocks and landing area) it held
  // during the call: at most cb_buffer_size (tests/mpi/io/io_cb_memory.c).
  uint64_t held = 0;
  // Any process: the most bytes of its own data it packed at once to send
  // (a write) or received apart to unpack (a read), which a buffer that
  // is not one dense run needs besides.
  uint64_t staged = 0;
};

// Phases 3-4: the rounds. Return this process's own error (an aggregator's
// failed system call, or a message that failed); the caller agrees on it.
// `detour` (io/collective.h): the data of an access through a converting
// representation or on a GPU, moved a round's pieces at a time (then
// `buffer` is not used).
Err write_two_phase(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer,
                    AggregatorReport* report, const Detour* detour = nullptr);
Err read_two_phase(File& f, const Plan& plan, const FlatAccess& access, const Buffer& buffer,
                   AggregatorReport* report, const Detour* detour = nullptr);

// The aggregator's buffers, reused by every call of this thread (so a call
// does not fault in fresh pages): `which` 0 the block (3 the second block of
// a double-buffered plan), 1 the landing area; 2 is data sieving's window
// (io/data_sieving.h). Blocks and landing area are taken at exactly the
// plan's sizes, so a thread holds no more than its last call's
// cb_buffer_size; `*held`, when given, grows by the bytes taken.
char* collective_buffer(int which, uint64_t bytes, uint64_t* held = nullptr);

// pwrite/pread of a whole range, with short transfers continued and EINTR
// retried (io/access.cc's rules); a read past the end of the file fills
// zeros. 0 or the errno.
int write_range(int fd, const char* data, uint64_t bytes, uint64_t offset);
int read_range(int fd, char* data, uint64_t bytes, uint64_t offset);

}  // namespace ferry::io
