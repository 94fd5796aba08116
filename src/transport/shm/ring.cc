#include "transport/shm/ring.h"

#include <algorithm>
#include <cstring>

namespace ferry::transport::shm {
namespace {

constexpr size_t kStampBytes = sizeof(uint64_t);

// A frame's stamp: which frame-sized slot of the stream it starts (counted
// from 1, so that zeroed memory is never a frame) and how many bytes follow.
uint64_t stamp_for(uint64_t position, size_t bytes) { return ((position / kCacheLine + 1) << 16) | bytes; }
uint64_t stamp_frame(uint64_t stamp) { return stamp >> 16; }
size_t stamp_bytes(uint64_t stamp) { return static_cast<size_t>(stamp & 0xffff); }
// 48 bits of frame number: compared as the stamp holds them.
uint64_t frame_number(uint64_t position) { return (position / kCacheLine + 1) & ((uint64_t{1} << 48) - 1); }

// Space a frame of `n` stream bytes takes: the next frame starts on a line.
uint64_t footprint(size_t n) { return (kStampBytes + n + kCacheLine - 1) / kCacheLine * kCacheLine; }

}  // namespace

Ring::Ring(void* base, size_t data_bytes)
    : control_(static_cast<RingControl*>(base)),
      data_(static_cast<char*>(base) + sizeof(RingControl)),
      mask_(data_bytes - 1),
      head_(control_->head.load(std::memory_order_relaxed)),
      seen_tail_(control_->tail.load(std::memory_order_acquire)),
      frame_start_(seen_tail_),
      read_at_(seen_tail_) {}

bool Ring::has_room(size_t n) {
  uint64_t need = footprint(n);
  if (capacity() - (head_ - seen_tail_) >= need) return true;
  // Acquire: the consumer has finished reading the space it freed.
  seen_tail_ = control_->tail.load(std::memory_order_acquire);
  return capacity() - (head_ - seen_tail_) >= need;
}

void Ring::copy_in(uint64_t position, const void* data, size_t n) {
  size_t at = position & mask_;
  // One copy unless the bytes wrap around the ring's end (a small packet,
  // within one line, never does).
  if (n <= capacity() - at) [[likely]] {
    std::memcpy(data_ + at, data, n);
    return;
  }
  size_t first = capacity() - at;
  std::memcpy(data_ + at, data, first);
  std::memcpy(data_, static_cast<const char*>(data) + first, n - first);
}

void Ring::publish(size_t n) {
  // Release: the frame's bytes are in place before the consumer sees its stamp.
  stamp_at(head_).store(stamp_for(head_, n), std::memory_order_release);
  head_ += footprint(n);
  control_->head.store(head_, std::memory_order_release);
}

size_t Ring::write(const void* data, size_t n) {
  n = std::min(n, kMaxFrameBytes);
  if (n == 0) return 0;
  if (!has_room(n)) {
    // Whatever fits: free space is whole lines, the stamp takes 8 bytes of the first.
    size_t free = capacity() - (head_ - seen_tail_);
    if (free <= kStampBytes) return 0;
    n = std::min(n, free - kStampBytes);
  }
  copy_in(head_ + kStampBytes, data, n);
  publish(n);
  return n;
}

bool Ring::write_all(const void* a, size_t n_a, const void* b, size_t n_b) {
  size_t n = n_a + n_b;
  if (n == 0) return true;  // an empty frame would read as "nothing arrived" and stall the ring
  if (n > kMaxFrameBytes || !has_room(n)) return false;
  copy_in(head_ + kStampBytes, a, n_a);
  if (n_b > 0) copy_in(head_ + kStampBytes + n_a, b, n_b);
  publish(n);
  return true;
}

size_t Ring::free_space() const {
  // Acquire: the consumer has finished reading the space it freed.
  return capacity() - (control_->head.load(std::memory_order_acquire) - control_->tail.load(std::memory_order_acquire));
}

size_t Ring::readable() {
  if (frame_left_ > 0) return frame_left_;
  // Acquire: the frame's bytes were written before its stamp.
  uint64_t stamp = stamp_at(frame_start_).load(std::memory_order_acquire);
  if (stamp_frame(stamp) != frame_number(frame_start_)) {
    // While we wait, the lines after the stamp's that the last frame
    // took come with it at each look: a packet with more than 8 bytes of
    // data takes two lines or more, and they would otherwise cross from
    // the producer's core only after the stamp was seen (issue 29: 2-rank
    // ping-pong of 16-256 B 0.84-0.93 us -> 0.76-0.85, MPI_Sendrecv
    // 0.57-0.77 -> 0.47-0.67 on the EPYC VM). Not for frames longer than
    // kMostLinesAhead + 1 lines: loaded at every look while the producer
    // still writes them, their lines went back and forth, and 1 KiB
    // ping-pongs took 1.73-1.80 us against 1.46-1.53. A line loaded
    // early is only loaded again: the stamp still orders the reads.
    for (uint64_t line = 1; line <= lines_ahead_; ++line)
      __builtin_prefetch(data_ + ((frame_start_ + line * kCacheLine) & mask_));
    return 0;
  }
  frame_left_ = stamp_bytes(stamp);
  read_at_ = frame_start_ + kStampBytes;
  return frame_left_;
}

void Ring::read(void* out, size_t n) {
  if (n == 0) return;
  // The lines of a multi-line frame are written below (zeroing, see the
  // end): asking for them all now, before the copy, overlaps their transfers.
  if (frame_left_ > kCacheLine)
    for (uint64_t line = (read_at_ + kCacheLine - 1) & ~uint64_t{kCacheLine - 1}; line < read_at_ + n;
         line += kCacheLine)
      __builtin_prefetch(data_ + (line & mask_), 1);
  if (out != nullptr) {
    size_t at = read_at_ & mask_;
    if (n <= capacity() - at) [[likely]] {
      std::memcpy(out, data_ + at, n);
    } else {
      size_t first = capacity() - at;
      std::memcpy(out, data_ + at, first);
      std::memcpy(static_cast<char*>(out) + first, data_, n - first);
    }
  }
  read_at_ += n;
  frame_left_ -= n;
  if (frame_left_ > 0) return;
  uint64_t end = (read_at_ + kCacheLine - 1) / kCacheLine * kCacheLine;
  // A later frame may start on any line this one covered, and its first
  // word would then be polled as a stamp: zero the words that held payload
  // (the frame's own first word is a stamp of this lap, never a match).
  // A one-line frame, a small packet, has none.
  for (uint64_t line = frame_start_ + kCacheLine; line < end; line += kCacheLine)
    stamp_at(line).store(0, std::memory_order_relaxed);
  // The next frame is likely as long as this one (a stream of one size).
  const uint64_t lines = (end - frame_start_) / kCacheLine;
  lines_ahead_ = lines <= kMostLinesAhead + 1 ? lines - 1 : 0;
  frame_start_ = end;
  // Release: our reads (and the zeroing) are done before the producer may
  // overwrite the space.
  control_->tail.store(frame_start_, std::memory_order_release);
}

}  // namespace ferry::transport::shm
