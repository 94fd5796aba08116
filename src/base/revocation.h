// Which communicators are revoked (MPIX_Comm_revoke, p2p/revoke.h), by
// context id: a revoked communicator's point-to-point and collective
// contexts refuse every new operation with MPIX_ERR_REVOKED. Its
// group-collective context stays open, because MPIX_Comm_agree and
// MPIX_Comm_shrink must still work on a revoked communicator.
//
// Kept here, below the engine, so that the communicator's context can be
// forgotten when the communicator is destroyed and its context id reused.
#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::revocation {

extern std::atomic<bool> any;  // some communicator was ever revoked

// Marks the communicator whose point-to-point context is `p2p_context`;
// false if it was already revoked.
bool mark(uint32_t p2p_context);
// Its context id is free again.
void forget(uint32_t p2p_context);
bool is_revoked_slow(uint32_t context);

// What every send and receive start asks: one relaxed load until a
// communicator is revoked.
inline __attribute__((always_inline)) bool is_revoked(uint32_t context) {
  return any.load(std::memory_order_relaxed) && is_revoked_slow(context);
}

}  // namespace ferry::revocation
