// Which memory a pointer is in, asking the driver once per allocation.
//
// cuPointerGetAttributes costs around a microsecond; a program sends from
// the same few buffers over and over. So every device or managed
// allocation the driver describes is kept by its range [base, base+size),
// and host pointers by their 64 KiB granule in a direct-mapped table: a
// repeated question is a table probe or a search of a small sorted map,
// well under 100 ns (tests/bench/device_memory_check).
//
// What this trusts. Host memory can become GPU memory: memory unmapped (a
// large malloc block freed, which glibc unmaps without any hook seeing it)
// leaves addresses the driver may reserve for its next GPU allocations.
// So host granules are cached only where that cannot happen: below the
// program break (the program's image and malloc's brk heap, which holds
// small blocks) and in the main thread's stack; a host pointer elsewhere
// (large or mmap'd blocks, other threads' stacks) is asked about every
// time, one cuPointerGetAttributes (about 0.1 us on an H200), negligible
// beside the large message such a buffer usually carries. GPU addresses
// are not stable either: the driver hands a freed range out again, to device or
// managed memory alike (cudaFree then cudaMallocManaged often returns the
// same pointer). So a hit on a known allocation is confirmed by its buffer
// id, one cheap attribute query (ids are never reused); a different id
// means the allocation was replaced and it is described afresh. Taking a
// new device allocation for the old managed one would let the host touch
// GPU memory (the crash the first GPU run found).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "device/device.h"

namespace ferry::device {

class MemoryCache {
 public:
  explicit MemoryCache(const Ops* ops);

  // What `p` is; on a failed driver call, host memory and `*error` set to
  // its code (else left alone).
  PointerInfo lookup(const void* p, int* error);
  // Whether `p` is in a host granule already known: the common answer for
  // host buffers, from one load, without the driver or the lock.
  bool known_host(const void* p) const {
    auto granule = reinterpret_cast<uintptr_t>(p) >> kGranuleShift;
    return host_granules_[slot_of(granule)].load(std::memory_order_acquire) == granule + 1;
  }
  // Asks the driver again and replaces what was cached for p's allocation.
  PointerInfo refresh(const void* p, int* error);
  void clear();

  // How often the driver was asked (tests: a repeated lookup must not ask).
  uint64_t driver_queries() const { return queries_; }  // full descriptions, not id checks
  size_t allocations() const;

  static constexpr unsigned kGranuleShift = 16;
  static constexpr size_t kHostSlots = 4096;
  static size_t slot_of(uintptr_t granule) { return static_cast<size_t>(granule) & (kHostSlots - 1); }

 private:
  // Asks the driver (lock held). `remember_host`: false where p was in a GPU
  // allocation a moment ago, whose addresses the driver will hand out again.
  PointerInfo ask(const void* p, int* error, bool remember_host = true);

  // Whether host memory at `address` can never be handed to the driver
  // (above): below the program break, or in the main thread's stack.
  bool stays_host(uintptr_t address) const;

  const Ops* ops_;
  uintptr_t stack_low_ = 0, stack_high_ = 0;  // the main thread's stack, as far as it may grow
  mutable std::mutex lock_;
  std::map<uintptr_t, PointerInfo> allocations_;  // by base
  // Granule number + 1; 0: empty. Read without the lock: a host buffer's
  // check is every MPI call's, and the lock pair was most of its cost
  // (docs/performance.md). Written under the lock; a reader that races a
  // write sees the old entry or the new one, each true when written.
  std::atomic<uintptr_t> host_granules_[kHostSlots] = {};
  uint64_t queries_ = 0;
};

}  // namespace ferry::device
