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
//
// A producer that finds the ring full says how much free space it waits for
// (`writer_wants`, beside `head` and written only when it blocks); the
// consumer reads it after freeing space to decide whether the producer needs
// a wake-up (p2p/shm/wakeup.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ferry::p2p::shm {

constexpr size_t kCacheLine = 64;

struct RingControl {
  alignas(kCacheLine) std::atomic<uint64_t> head;  // bytes written so far (producer)
  std::atomic<uint64_t> writer_wants;              // free bytes the blocked producer waits for; 0: not blocked
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
  // Producer: copies all `n` bytes or none (a packet header, so that the
  // consumer never sees part of one); returns whether it did.
  bool write_all(const void* data, size_t n);
  // Either side: bytes the producer may write now.
  size_t free_space() const;
  // Consumer: bytes published and not yet consumed.
  size_t readable() const;
  // Consumer: copies `n` readable bytes out (into `out`, or nowhere when
  // null) and frees their space.
  void read(void* out, size_t n);

  // Producer: blocked until `bytes` are free (0: no longer blocked).
  void set_writer_wants(uint64_t bytes) { control_->writer_wants.store(bytes, std::memory_order_relaxed); }
  // Consumer: what the producer waits for (read after a fence, see wakeup.h).
  uint64_t writer_wants() const { return control_->writer_wants.load(std::memory_order_relaxed); }

  size_t capacity() const { return mask_ + 1; }

 private:
  RingControl* control_ = nullptr;
  char* data_ = nullptr;
  size_t mask_ = 0;
};

}  // namespace ferry::p2p::shm
