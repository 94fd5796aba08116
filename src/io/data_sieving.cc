#include "io/data_sieving.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include <algorithm>

#include "io/errors.h"
#include "io/flatten.h"
#include "io/two_phase.h"

namespace ferry::io {
namespace {

constexpr uint64_t kSmallRun = 16u << 10;

struct RunCounter final : type::RunVisitor {
  uint64_t runs = 0;
  void run(uint64_t, uint64_t) override { ++runs; }
};

// pread until `bytes` are read or the file ends; *got says how many were.
int read_some(int fd, char* data, uint64_t bytes, uint64_t offset, uint64_t* got) {
  *got = 0;
  while (bytes > 0) {
    ssize_t n = ::pread(fd, data, bytes, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return 0;
    data += n;
    bytes -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
    *got += static_cast<uint64_t>(n);
  }
  return 0;
}

}  // namespace

bool use_data_sieving(const File& f, Direction direction) {
  const bool reading = direction == Direction::kRead;
  const Use mode = reading ? f.tuning.ds_read : f.tuning.ds_write;
  const Datatype& ft = f.view.filetype();
  if (mode == Use::kDisable || ft.contiguous || ft.size == 0 || !FlatAccess::ordered(f.view)) return false;
  if (mode == Use::kEnable) return true;
  if (!reading) return false;  // see the header: a write that sieves must lock
  // Automatic: a window must be mostly data, and the runs small enough
  // that a call per run costs more than the copy.
  const double density = static_cast<double>(ft.size) / static_cast<double>(ft.extent);
  if (density < 0.25) return false;
  RunCounter count;
  type::for_each_run(ft, 0, 1, 0, ft.size, count);
  return count.runs > 1 && ft.size / count.runs < kSmallRun;
}

SievingMover::SievingMover(const File& f, Direction direction, char* data, uint64_t file_end)
    : f_(f), direction_(direction), data_(data), file_end_(file_end),
      buffer_bytes_(direction == Direction::kRead ? f.tuning.ind_rd_buffer_size : f.tuning.ind_wr_buffer_size),
      buffer_(collective_buffer(2, buffer_bytes_)) {}

Err SievingMover::describe(int err, const char* verb, uint64_t bytes, uint64_t offset) const {
  char what[160];
  std::snprintf(what, sizeof what, "%s %llu bytes at offset %llu of", verb, static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(offset));
  return system_error(err, what, f_.path);
}

void SievingMover::run(uint64_t offset, uint64_t bytes) {
  if (stopped_) return;
  if (direction_ == Direction::kRead) {
    read_run(offset, bytes);
    return;
  }
  // A large run goes straight to the file.
  if (bytes >= buffer_bytes_) {
    flush_writes();
    if (stopped_) return;
    if (int err = write_range(f_.fd, data_ + moved, bytes, offset)) {
      error = describe(err, "cannot write", bytes, offset);
      stopped_ = true;
      return;
    }
    moved += bytes;
    return;
  }
  if (!pieces_.empty() && offset + bytes - pieces_.front().offset > buffer_bytes_) flush_writes();
  if (stopped_) return;
  uint64_t pending = 0;
  for (const Piece& p : pieces_) pending += p.bytes;
  pieces_.push_back(Piece{offset, bytes, data_ + moved + pending});
}

void SievingMover::read_run(uint64_t offset, uint64_t bytes) {
  char* into = data_ + moved;
  if (bytes >= buffer_bytes_) {
    uint64_t got = 0;
    int err = read_some(f_.fd, into, bytes, offset, &got);
    moved += got;
    if (err != 0) error = describe(err, "cannot read", bytes, offset);
    if (err != 0 || got < bytes) {
      stopped_ = true;
      end_of_file = err == 0;
    }
    return;
  }
  // A new window where the run leaves the current one.
  if (!window_loaded_ || offset < window_start_ || offset + bytes > window_start_ + buffer_bytes_) {
    uint64_t span = std::min(buffer_bytes_, std::max(file_end_, offset + bytes) - offset);
    if (int err = read_some(f_.fd, buffer_, span, offset, &window_valid_)) {
      error = describe(err, "cannot read (data sieving)", span, offset);
      stopped_ = true;
      return;
    }
    window_start_ = offset;
    window_loaded_ = true;
  }
  uint64_t at = offset - window_start_;
  uint64_t available = window_valid_ > at ? std::min(bytes, window_valid_ - at) : 0;
  std::memcpy(into, buffer_ + at, available);
  moved += available;
  if (available < bytes) {  // the end of the file
    stopped_ = true;
    end_of_file = true;
  }
}

void SievingMover::flush_writes() {
  if (pieces_.empty()) return;
  const uint64_t first = pieces_.front().offset;
  uint64_t end = first, bytes = 0;
  bool holes = false;
  for (const Piece& p : pieces_) {
    if (p.offset > end) holes = true;
    end = std::max(end, p.offset + p.bytes);
    bytes += p.bytes;
  }
  int err = 0;
  if (!holes) {
    // The runs touch: their packed data is the window already.
    err = write_range(f_.fd, pieces_.front().data, end - first, first);
    if (err != 0) error = describe(err, "cannot write", end - first, first);
  } else {
    err = read_range(f_.fd, buffer_, end - first, first);
    if (err != 0) error = describe(err, "cannot read (data sieving)", end - first, first);
    if (err == 0) {
      for (const Piece& p : pieces_) std::memcpy(buffer_ + (p.offset - first), p.data, p.bytes);
      err = write_range(f_.fd, buffer_, end - first, first);
      if (err != 0) error = describe(err, "cannot write (data sieving)", end - first, first);
    }
  }
  pieces_.clear();
  if (err != 0) {
    stopped_ = true;
    return;
  }
  moved += bytes;
}

void SievingMover::finish() {
  if (direction_ == Direction::kWrite && !stopped_) flush_writes();
}

}  // namespace ferry::io
