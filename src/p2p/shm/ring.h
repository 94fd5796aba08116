// A single-producer, single-consumer byte ring in shared memory.
//
// One ring carries the packets of one sender to one receiver, as a byte
// stream (header, then payload), so a payload larger than the ring passes in
// pieces as the receiver frees space. The positions only grow (64 bits never
// wrap in practice); the index into the data is the position modulo the
// power-of-two size. The producer owns `head`, the consumer `tail`; each sits
// on its own cache line so that neither side's stores invalidate the other's
// line more than the protocol needs. Publishing is a release store, observing
// an acquire load: no lock and no system call on the fast path.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ferry::p2p::shm {

constexpr size_t kCacheLine = 64;

struct RingControl {
  alignas(kCacheLine) std::atomic<uint64_t> head;  // bytes written so far (producer)
  alignas(kCacheLine) std::atomic<uint64_t> tail;  // bytes consumed so far (consumer)
};
static_assert(sizeof(RingControl) == 2 * kCacheLine);
static_assert(std::atomic<uint64_t>::is_always_lock_free, "the ring is shared between processes");

// Bytes one ring takes in a segment: its control block, then its data.
constexpr size_t ring_footprint(size_t data_bytes) { return sizeof(RingControl) + data_bytes; }

// A view of a ring at `base` (ring_footprint(data_bytes) bytes, zeroed when
// new). data_bytes must be a power of two. Each side makes its own view.
class Ring {
 public:
  Ring() = default;
  Ring(void* base, size_t data_bytes);

  // Producer: copies up to `n` bytes from `data` into the free space and
  // publishes them; returns how many it took.
  size_t write(const void* data, size_t n);
  // Consumer: bytes published and not yet consumed.
  size_t readable() const;
  // Consumer: copies `n` readable bytes out (into `out`, or nowhere when
  // null) and frees their space.
  void read(void* out, size_t n);

  size_t capacity() const { return mask_ + 1; }

 private:
  RingControl* control_ = nullptr;
  char* data_ = nullptr;
  size_t mask_ = 0;
};

}  // namespace ferry::p2p::shm
