// A single-producer, single-consumer ring of frames in shared memory.
//
// One ring carries the packets of one sender to one receiver as a byte
// stream (header, then payload), cut into frames: each frame starts on a
// cache line with an 8-byte stamp, then up to kMaxFrameBytes of the stream.
// The producer writes a frame's bytes first and its stamp last (a release
// store); the consumer polls the stamp where the next frame must start (an
// acquire load). The stamp holds the frame's position, so a stamp left from
// an earlier lap of the ring never passes for a new one, and its length.
// Where a frame will start, an earlier lap may have left payload bytes
// instead, which could read as any stamp: the consumer zeroes the first word
// of every line a frame's payload covered before it frees the frame. (Done
// by the producer, just ahead of each frame, the zeroing store would sit in
// front of the stamp's and delay it by a cache-line transfer.)
//
// Why frames rather than a shared head counter: a small packet (stamp,
// 48-byte header, 8 bytes of data) fills exactly one cache line, so the
// consumer learns that a packet arrived and reads it in a single transfer
// of that line between the cores; with a head counter it would first miss
// on the counter's line, then, only after that, on the data's. A longer
// packet's later lines the waiting consumer loads at each look with the
// stamp's, as many as its last frame took (up to kMostLinesAhead), so that
// they too cross with the stamp rather than after it. The consumer
// frees space per frame, by storing `tail`; the producer reads `tail` only
// when the space it last saw runs out, so it does not miss on that line on
// every packet either.
//
// Positions (bytes) only grow (64 bits never wrap in practice); the index
// into the data is the position modulo the power-of-two size. `head` and
// `tail` sit on cache lines of their own. No lock and no system call.
//
// A producer that finds the ring full says how much free space it waits for
// (`writer_wants`, written only when it blocks); the
// consumer reads it after freeing space to decide whether the producer needs
// a wake-up (transport/shm/wakeup.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ferry::transport::shm {

constexpr size_t kCacheLine = 64;
// The most stream bytes one frame carries (the stamp holds 16 bits of length).
constexpr size_t kMaxFrameBytes = 65535;
// The most lines after a frame's stamp line that a waiting consumer loads
// with it (ring.cc, readable).
constexpr uint64_t kMostLinesAhead = 8;

// Each word on a line of its own: `head` changes with every frame but only
// the producer reads it on the fast path; `writer_wants` changes only when
// the producer blocks and the consumer reads it after every drain; `tail`
// changes with every frame consumed and the producer reads it only when it
// runs out of space. Sharing a line would cost a transfer per packet.
struct RingControl {
  alignas(kCacheLine) std::atomic<uint64_t> head;          // end of the last frame written (producer)
  alignas(kCacheLine) std::atomic<uint64_t> writer_wants;  // free bytes the blocked producer waits for; 0: not blocked
  alignas(kCacheLine) std::atomic<uint64_t> tail;          // end of the last frame consumed (consumer)
};
static_assert(sizeof(RingControl) == 3 * kCacheLine);
static_assert(std::atomic<uint64_t>::is_always_lock_free, "the ring is shared between processes");

// Bytes one ring takes in a segment: its control block, then its data.
constexpr size_t ring_footprint(size_t data_bytes) { return sizeof(RingControl) + data_bytes; }

// A view of a ring at `base` (ring_footprint(data_bytes) bytes, zeroed when
// new, cache-line aligned). data_bytes must be a power of two, at least a
// cache line. Each side makes its own view and uses only its own calls.
class Ring {
 public:
  Ring() = default;
  Ring(void* base, size_t data_bytes);

  // Producer: writes up to `n` bytes from `data` as one frame, as many as
  // the free space and kMaxFrameBytes allow; returns how many it took.
  size_t write(const void* data, size_t n);
  // Producer: writes `a` then `b` (n_a + n_b bytes) as one frame, or nothing
  // (a packet header, alone or with its payload, so that the consumer never
  // sees part of a header); returns whether it did.
  bool write_all(const void* a, size_t n_a, const void* b = nullptr, size_t n_b = 0);
  // Either side: bytes of free space now (frames round up to cache lines).
  size_t free_space() const;
  // Consumer: bytes of the current frame not yet consumed (0: none arrived).
  size_t readable();
  // Consumer: where the next unread byte lies, for reading in place bytes
  // that the caller knows do not wrap around the ring's end (a packet
  // header: it starts a frame, so it lies within the frame's first line),
  // after readable() and before read() consumes them.
  const void* next_bytes() const { return data_ + (read_at_ & mask_); }
  // Consumer: copies `n` <= readable() bytes out (into `out`, or nowhere when
  // null); a frame's space is freed once all its bytes are consumed.
  void read(void* out, size_t n);

  // Producer: blocked until `bytes` are free (0: no longer blocked).
  void set_writer_wants(uint64_t bytes) { control_->writer_wants.store(bytes, std::memory_order_relaxed); }
  // Consumer: what the producer waits for (read after a fence, see wakeup.h).
  uint64_t writer_wants() const { return control_->writer_wants.load(std::memory_order_relaxed); }

  size_t capacity() const { return mask_ + 1; }
  // Producer: the stream position where the next frame goes (bytes of
  // frames written so far, rounded to lines).
  uint64_t written() const { return head_; }

 private:
  std::atomic<uint64_t>& stamp_at(uint64_t position) const {
    return *reinterpret_cast<std::atomic<uint64_t>*>(data_ + (position & mask_));
  }
  // Producer: room for a frame of `n` bytes, re-reading `tail` only if the
  // space seen last time is too small.
  bool has_room(size_t n);
  void copy_in(uint64_t position, const void* data, size_t n);
  void publish(size_t n);

  RingControl* control_ = nullptr;
  char* data_ = nullptr;
  size_t mask_ = 0;
  // Producer's view: where the next frame starts, the last tail it read.
  uint64_t head_ = 0;
  uint64_t seen_tail_ = 0;
  // Consumer's view: the frame being read.
  uint64_t frame_start_ = 0;  // position of its stamp (== tail while it lasts)
  uint64_t read_at_ = 0;      // next stream byte's position
  size_t frame_left_ = 0;     // its bytes not yet consumed
  uint64_t lines_ahead_ = 0;  // lines after the next stamp's to load while waiting: the last frame's
};

}  // namespace ferry::transport::shm
