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
//
// A wait also ends when the communicator is revoked (MPIX_Comm_revoke, by
// this rank's other thread or by a member whose kRevoke packet the engine
// receives while we wait, p2p/revoke.h): the member we wait for may have
// revoked instead of calling the collective, and its flag would never come
// (the message path ends the same way, its receives failed by the
// revocation). One relaxed load per engine pass until some communicator
// was ever revoked (base/revocation.h).
#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::coll::shm {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// About a microsecond of pauses: a peer already in the same collective
// answers within that, and the engine's wait costs more to enter.
constexpr int kSpins = 256;

// False if the communicator whose point-to-point context is `context` was
// revoked before `word` reached `target`.
[[nodiscard]] bool wait_slow(const std::atomic<uint64_t>& word, uint64_t target, uint32_t context);

[[nodiscard]] inline bool wait_at_least(const std::atomic<uint64_t>& word, uint64_t target, uint32_t context) {
  if (word.load(std::memory_order_acquire) >= target) [[likely]] return true;
  return wait_slow(word, target, context);
}

// Until either word reaches its target (the same, for two flags at once).
[[nodiscard]] bool wait_either(const std::atomic<uint64_t>& a, uint64_t a_target, const std::atomic<uint64_t>& b,
                               uint64_t b_target, uint32_t context);

}  // namespace ferry::coll::shm
