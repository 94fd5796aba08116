// Collective IO: the aggregator's blocks and their trips to the file,
// double-buffered (the part of phases 3-4 that touches the file;
// io/two_phase_write.cc and io/two_phase_read.cc drive it round by round).
//
// Double-buffered (ferry_cb_double_buffer enable, the default), the
// aggregator has two blocks of a third of cb_buffer_size (the landing area
// takes the last third, see below), used by alternate rounds: round k's block goes to the file (a write) or
// comes from it (a read) on the I/O worker thread (io/worker.h) while the
// aggregator exchanges round k+1's data through the other block. Before it
// uses a block again (round k+2) the aggregator waits for the worker to be
// done with it: that wait is the only order between rounds the file needs,
// since the windows of an aggregator's rounds are disjoint ranges of the
// file (io/two_phase.h: Plan::window_lo/hi), and so are the domains of two
// aggregators. A write's read-modify-write of its holes happens on the
// aggregator's thread, into its own block, while the worker writes the
// other window: disjoint bytes again, and the call returns only after
// every block is in the file.
//
// The blocks and the landing area where the other processes' pieces of a
// round arrive (a write) or their replies are packed (a read) share
// cb_buffer_size, "the total buffer space that can be used for collective
// buffering on this process" (MPI-3.1 §13.2.8): double-buffered, two
// blocks and the landing area of a third of it each (io/file_domains.cc),
// so the aggregator never holds more, whatever the access (FERRY_DEBUG=io
// reports what it held; tests/mpi/io/io_cb_memory.c checks it). ROMIO's
// default does no overlap; its GPFS driver's threaded IO
// (GPFSMPIO_PTHREADIO) divides the buffer alike.
//
// Not double-buffered (disable, or cb_buffer_size under 3 bytes), one
// block and the landing area, half of it each, and each round's transfer
// runs on the aggregator's own thread when the caller finishes it.
//
// Cost: a round's transfer is its pwrite/pread calls either way; double
// buffering adds a queue hand-off to the worker and an eventfd wake-up per
// round, and makes the window a third of cb_buffer_size instead of a half,
// so the same access takes 1.5 times the rounds (an alltoall of two words
// per process each).
#pragma once

#include <cstdint>
#include <vector>

#include "base/error.h"
#include "base/request.h"
#include "io/access.h"
#include "io/file.h"
#include "io/two_phase.h"
#include "io/worker.h"

namespace ferry::io {

struct Extent {
  uint64_t offset, bytes;  // in the file
};

// Moves this process's own pieces of a round between its buffer and the
// aggregator's block, when it is that aggregator: no message, no landing
// area. The buffer's memory runs of packed bytes [from, from + bytes) are
// walked against the file runs `runs` ((offset, length) pairs, in file
// order, `bytes` in all); byte i of the block is file offset `lo` + i.
void copy_own_pieces(Direction direction, const Buffer& buffer, uint64_t from, uint64_t bytes,
                     const std::vector<uint64_t>& runs, char* block, uint64_t lo);

class BlockPipeline {
 public:
  BlockPipeline(File& f, const Plan& plan, Direction direction, AggregatorReport* report);
  // Waits for any transfer still running (the worker must not outlive the
  // block it writes from): on every path, errors included.
  ~BlockPipeline();
  BlockPipeline(const BlockPipeline&) = delete;
  BlockPipeline& operator=(const BlockPipeline&) = delete;

  bool double_buffered() const { return plan_.double_buffered; }
  // Round k's block; byte i is file offset window_lo(k) + i.
  char* block(int64_t k) const { return blocks_[slot(k)]; }
  // Starts round k's transfer of `extents` (file ranges in its window, in
  // order) between its block and the file: on the worker when
  // double-buffered; else it runs at finish(k).
  void start(int64_t k, uint64_t window_lo, std::vector<Extent> extents);
  // Waits until round k's transfer is done (nothing to do when none was
  // started, or it is done already): before the block is reused, or, for a
  // read, before its data is. The transfer's error.
  Err finish(int64_t k);

 private:
  // One round's transfer: runs on the worker, or inline.
  struct Transfer final : worker::Task {
    int fd = -1;
    Direction direction = Direction::kWrite;
    char* block = nullptr;
    uint64_t lo = 0;
    std::vector<Extent> extents;
    int64_t round = -1;  // -1: none pending in this slot
    Request* request = nullptr;
    // Results, read once the transfer is done.
    int err = 0;
    Extent failed{0, 0};
    uint64_t syscalls = 0, bytes = 0, ns = 0;
    void run() override;
  };
  size_t slot(int64_t k) const { return plan_.double_buffered ? static_cast<size_t>(k % 2) : 0; }

  File& f_;
  const Plan& plan_;
  Direction direction_;
  AggregatorReport* report_;
  char* blocks_[2] = {nullptr, nullptr};
  Transfer transfers_[2];
};

}  // namespace ferry::io
