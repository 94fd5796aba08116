#include "base/revocation.h"

#include <algorithm>
#include <bitset>
#include <iterator>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "base/communicator.h"
#include "base/context_id.h"
#include "base/group.h"

namespace ferry::revocation {

std::atomic<bool> any{false};

namespace {

std::mutex mutex;
std::set<uint32_t> revoked;  // point-to-point and collective contexts
// The communicator on each slot here, from settle to forget.
const Communicator* settled[context_ids::kSlots] = {};
// Slots of communicators this process revoked: never offered again.
std::bitset<context_ids::kSlots> kept;
// Notices that found no communicator on their slot: (slot, sender).
std::vector<std::pair<uint32_t, int>> held;

bool has_member(const Communicator& c, int world_rank) {
  auto in = [world_rank](const Group* g) {
    return g != nullptr && std::find(g->members.begin(), g->members.end(), world_rank) != g->members.end();
  };
  return in(c.group) || (c.inter && in(c.remote_group));
}

uint32_t slot_of(uint32_t context) { return context_ids::slot_of_context(context); }

// mutex held. An intercommunicator's collectives take their local steps
// on its hidden local intracommunicator (coll/inter): its contexts go with
// it, so that a member waiting in such a step for one that has given up
// ends too.
Marked mark(const Communicator& c) {
  bool fresh = revoked.insert(c.context).second;
  revoked.insert(c.context + 1);  // its collectives (base/communicator.h)
  Marked m;
  if (!fresh) return m;
  m.context = c.context;
  if (c.inter && c.local != nullptr) {
    revoked.insert(c.local->context);
    revoked.insert(c.local->context + 1);
    m.local_context = c.local->context;
  }
  any.store(true, std::memory_order_relaxed);
  return m;
}

}  // namespace

Marked settle(const Communicator& c) {
  std::lock_guard lock(mutex);
  const uint32_t slot = slot_of(c.context);
  settled[slot] = &c;
  bool named = false;
  for (size_t i = 0; i < held.size();) {
    if (held[i].first != slot) {
      ++i;
      continue;
    }
    named = named || has_member(c, held[i].second);
    held[i] = held.back();
    held.pop_back();
  }
  return named ? mark(c) : Marked{};
}

void reset() {
  std::lock_guard lock(mutex);
  revoked.clear();
  std::fill(std::begin(settled), std::end(settled), nullptr);
  kept.reset();
  held.clear();
  any.store(false, std::memory_order_relaxed);
}

bool forget(const Communicator& c) {
  std::lock_guard lock(mutex);
  const uint32_t slot = slot_of(c.context);
  if (settled[slot] == &c) settled[slot] = nullptr;
  revoked.erase(c.context);
  revoked.erase(c.context + 1);
  return !kept.test(slot);
}

Marked revoke_own(const Communicator& c) {
  std::lock_guard lock(mutex);
  kept.set(slot_of(c.context));
  return mark(c);
}

Marked notice(uint32_t context, int sender) {
  std::lock_guard lock(mutex);
  const uint32_t slot = slot_of(context);
  if (slot >= context_ids::kSlots) return {};
  const Communicator* c = settled[slot];
  if (c == nullptr) {
    held.emplace_back(slot, sender);
    return {};
  }
  return has_member(*c, sender) ? mark(*c) : Marked{};
}

bool is_revoked_slow(uint32_t context) {
  std::lock_guard lock(mutex);
  return revoked.count(context) != 0;
}

}  // namespace ferry::revocation
