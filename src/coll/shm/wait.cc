#include "coll/shm/wait.h"

#include "base/revocation.h"
#include "coll/shm/host.h"
#include "progress/progress.h"

namespace ferry::coll::shm {
namespace {

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

}  // namespace

bool wait_slow(const std::atomic<uint64_t>& word, uint64_t target, uint32_t context) {
  if (progress::wait_policy() != progress::WaitPolicy::kBlock) {
    for (int i = 0; i < kSpins; ++i) {
      cpu_relax();
      if (word.load(std::memory_order_acquire) >= target) return true;
    }
  }
  progress::Lock lock;
  Waiter w{&word, target, this_thread()};
  add_waiter(&w);
  bool reached = false;
  progress::wait_until(lock, [&] {
    reached = word.load(std::memory_order_acquire) >= target;
    return reached || revocation::is_revoked(context);
  });
  remove_waiter(&w);
  return reached;
}

}  // namespace ferry::coll::shm
