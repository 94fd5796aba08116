#include "transport/shm/fence.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ferry::transport::shm::fence {
namespace {

long membarrier(int command) { return syscall(__NR_membarrier, command, 0, 0); }

// -1: not tried yet; then 0 or 1. Set once, before any peer attaches.
int enabled = -1;

}  // namespace

bool enable_asymmetric() {
  if (enabled < 0) {
    long commands = membarrier(MEMBARRIER_CMD_QUERY);
    enabled = commands > 0 && (commands & MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0 &&
              membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
  }
  return enabled == 1;
}

void heavy() {
  // A failed call (it should not fail once registered) must not leave the
  // handshake without its fence.
  if (enabled != 1 || membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0)
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace ferry::transport::shm::fence
