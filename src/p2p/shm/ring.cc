#include "p2p/shm/ring.h"

#include <algorithm>
#include <cstring>

namespace ferry::p2p::shm {

Ring::Ring(void* base, size_t data_bytes)
    : control_(static_cast<RingControl*>(base)),
      data_(static_cast<char*>(base) + sizeof(RingControl)),
      mask_(data_bytes - 1) {}

size_t Ring::write(const void* data, size_t n) {
  uint64_t head = control_->head.load(std::memory_order_relaxed);
  // Acquire: the consumer has finished reading the space it freed.
  uint64_t tail = control_->tail.load(std::memory_order_acquire);
  n = std::min<size_t>(n, capacity() - (head - tail));
  if (n == 0) return 0;
  size_t at = head & mask_;
  size_t first = std::min(n, capacity() - at);
  std::memcpy(data_ + at, data, first);
  std::memcpy(data_, static_cast<const char*>(data) + first, n - first);
  // Release: the bytes are in place before the consumer sees the new head.
  control_->head.store(head + n, std::memory_order_release);
  return n;
}

bool Ring::write_all(const void* data, size_t n) {
  if (free_space() < n) return false;
  write(data, n);
  return true;
}

size_t Ring::free_space() const {
  // Acquire: the consumer has finished reading the space it freed.
  return capacity() - (control_->head.load(std::memory_order_relaxed) - control_->tail.load(std::memory_order_acquire));
}

size_t Ring::readable() const {
  return control_->head.load(std::memory_order_acquire) - control_->tail.load(std::memory_order_relaxed);
}

void Ring::read(void* out, size_t n) {
  uint64_t tail = control_->tail.load(std::memory_order_relaxed);
  if (out != nullptr) {
    size_t at = tail & mask_;
    size_t first = std::min(n, capacity() - at);
    std::memcpy(out, data_ + at, first);
    std::memcpy(static_cast<char*>(out) + first, data_, n - first);
  }
  // Release: our reads are done before the producer may overwrite the space.
  control_->tail.store(tail + n, std::memory_order_release);
}

}  // namespace ferry::p2p::shm
