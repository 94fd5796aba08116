// Independent accesses that are not contiguous in the file: data sieving
// (Thakur, Gropp and Lusk; ROMIO's ADIOI_GEN_ReadStrided/WriteStrided).
//
// Instead of one pread or pwrite per file run, a window of the file that
// holds many runs is read with one call into a buffer of ind_rd_buffer_size
// (ind_wr_buffer_size for writes) and the runs are copied out of it. A write
// copies the runs into the window and writes the window back with one call:
// where the runs leave no hole the window is written straight from the data,
// without reading; where they do, the window is read first. That rewrites
// bytes between the runs that other processes may be writing meanwhile, and
// MPI-3.1 §13.6.1 says such non-conflicting writes must both survive: so
// with romio_ds_write=enable every independent write to the file holds a
// POSIX byte-range lock on its range (io/access.cc), sieved or not, and
// "automatic" never sieves writes (ROMIO's default does, and loses data
// written by a process that does not lock). A run larger than the buffer is
// moved directly.
//
// Steered by romio_ds_read / romio_ds_write: "disable" never sieves,
// "enable" sieves every access whose view is not contiguous, "automatic"
// sieves reads where it pays: the view's runs are small (mean under 16 KiB)
// and dense enough that a window is mostly data (at least 1/4 of a tile).
//
// Cost: a window of runs costs one system call (two, plus a lock, for a
// write with holes) instead of one per run, and a memcpy of the data.
#pragma once

#include <cstdint>
#include <vector>

#include "base/error.h"
#include "base/type_pack.h"
#include "io/access.h"
#include "io/file.h"

namespace ferry::io {

// Whether an independent access through f's view sieves.
bool use_data_sieving(const File& f, Direction direction);

// A visitor for View::for_each_run, like io/access.cc's per-run mover:
// `data` is the packed data of the runs it will be shown, in order. After
// the walk, finish() writes the last window. `file_end`: one past the last
// file byte of the runs (a window never reads beyond). A writing caller
// holds the lock on the whole range.
class SievingMover final : public type::RunVisitor {
 public:
  SievingMover(const File& f, Direction direction, char* data, uint64_t file_end);
  void run(uint64_t offset, uint64_t bytes) override;
  void finish();

  uint64_t moved = 0;
  bool end_of_file = false;
  Err error;

 private:
  struct Piece {
    uint64_t offset, bytes;
    const char* data;
  };
  void read_run(uint64_t offset, uint64_t bytes);
  void flush_writes();
  Err describe(int err, const char* verb, uint64_t bytes, uint64_t offset) const;

  const File& f_;
  Direction direction_;
  char* data_;
  uint64_t file_end_;
  bool stopped_ = false;
  uint64_t buffer_bytes_;
  char* buffer_;
  // Reads: the window in the buffer, [start, start + valid) of the file.
  uint64_t window_start_ = 0, window_valid_ = 0;
  bool window_loaded_ = false;
  // Writes: the runs gathered for the window, in file order.
  std::vector<Piece> pieces_;
};

}  // namespace ferry::io
