#include "coll/shm/wait.h"

#include "base/revocation.h"
#include "coll/shm/host.h"
#include "progress/progress.h"

namespace ferry::coll::shm {

bool wait_slow(const std::atomic<uint64_t>& word, uint64_t target, uint32_t context) {
  return wait_either(word, target, word, target, context);
}

bool wait_either(const std::atomic<uint64_t>& a, uint64_t a_target, const std::atomic<uint64_t>& b,
                 uint64_t b_target, uint32_t context) {
  auto reached = [&] {
    return a.load(std::memory_order_acquire) >= a_target || b.load(std::memory_order_acquire) >= b_target;
  };
  if (reached()) return true;
  if (progress::wait_policy() != progress::WaitPolicy::kBlock) {
    for (int i = 0; i < kSpins; ++i) {
      cpu_relax();
      if (reached()) return true;
    }
  }
  progress::Lock lock;
  // Both words are re-checked before a sleep (host.h), so that the store of
  // either wakes us.
  Waiter wa{&a, a_target, this_thread()}, wb{&b, b_target, this_thread()};
  add_waiter(&wa);
  add_waiter(&wb);
  bool done = false;
  progress::wait_until(lock, [&] {
    done = reached();
    return done || revocation::is_revoked(context);
  });
  remove_waiter(&wb);
  remove_waiter(&wa);
  return done;
}

}  // namespace ferry::coll::shm
