// Waiting for a flag in a shared-memory collective segment (coll/shm).
//
// A flag is a 64-bit counter that only grows (an operation's sequence
// number), so a wait is "this word has reached that value". The fast path
// is a load; then a short spin with pause (not when ranks outnumber
// cores: the rank we wait for may need this core); then the progress
// engine's wait (progress/progress.h), which keeps other operations
// moving, yields the core between polls when ranks outnumber cores, and
// sleeps in the kernel after FERRY_SPIN_US / FERRY_YIELD_US, woken by the
// rank that stores the flag (host.h).
#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::coll::shm {

void wait_slow(const std::atomic<uint64_t>& word, uint64_t target);

inline void wait_at_least(const std::atomic<uint64_t>& word, uint64_t target) {
  if (word.load(std::memory_order_acquire) >= target) [[likely]] return;
  wait_slow(word, target);
}

}  // namespace ferry::coll::shm
