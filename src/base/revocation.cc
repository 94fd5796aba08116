#include "base/revocation.h"

#include <mutex>
#include <set>

namespace ferry::revocation {

std::atomic<bool> any{false};

namespace {
std::mutex mutex;
std::set<uint32_t> revoked;  // point-to-point and collective contexts
}  // namespace

bool mark(uint32_t p2p_context) {
  std::lock_guard lock(mutex);
  bool fresh = revoked.insert(p2p_context).second;
  revoked.insert(p2p_context + 1);  // its collectives (base/communicator.h)
  any.store(true, std::memory_order_relaxed);
  return fresh;
}

void forget(uint32_t p2p_context) {
  if (!any.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(mutex);
  revoked.erase(p2p_context);
  revoked.erase(p2p_context + 1);
}

bool is_revoked_slow(uint32_t context) {
  std::lock_guard lock(mutex);
  return revoked.count(context) != 0;
}

}  // namespace ferry::revocation
