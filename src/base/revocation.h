// Which communicators are revoked (MPIX_Comm_revoke, p2p/revoke.h), by
// context id: a revoked communicator's point-to-point and collective
// contexts (and an intercommunicator's local group's, where its
// collectives take their local steps) refuse every new operation with
// MPIX_ERR_REVOKED. Its
// group-collective context stays open, because MPIX_Comm_agree and
// MPIX_Comm_shrink must still work on a revoked communicator.
//
// Which communicator a notice names. A revoke notice from another member
// carries the context id only, and ids are reused: a member may free the
// revoked communicator and make the next one on the same id before the
// notice reaches it (the notice travels on the pair's channel, the next
// agreement on others: the shared segment, a tree). Two rules keep a late
// notice off the next communicator:
//   - the revoking process never offers the id again (its slot stays taken
//     when the communicator is freed), so no communicator made later with
//     it as a member can have that id;
//   - a member applies a notice only to a communicator on that id of which
//     the sender is a member, which by the first rule is the revoked one.
// A notice that finds no communicator on its id here came before this
// member finished making the revoked communicator (or after it freed it):
// it is held, and applied when a communicator with the sender settles on
// the id, dropped when one without the sender does. Every revoke costs the
// revoking process one of its 2044 free slots for good (MPI_COMM_WORLD's
// and the other reserved ones cost nothing); programs revoke rarely (ULFM
// recovery does it once per failure). The rules hold because only the
// revoking process sends notices: were members ever to forward them (ULFM's
// reliable broadcast, for processes that outlive a failure), each forwarder
// would have to keep the slot too.
//
// Kept here, below the engine, so that the communicator's context can be
// forgotten when the communicator is destroyed and its context id reused.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/context_id.h"

namespace ferry {
struct Communicator;
}

namespace ferry::revocation {

extern std::atomic<bool> any;  // some communicator was ever revoked

// What a call below revoked here just now: the communicator's
// point-to-point context and, on an intercommunicator, its local group's
// (kNoContext where none), copied under this file's lock so that the
// caller, which fails the receives posted on them, need not touch a
// communicator that another thread may be destroying. Empty where nothing
// was revoked.
struct Marked {
  uint32_t context = context_ids::kNoContext;
  uint32_t local_context = context_ids::kNoContext;
  explicit operator bool() const { return context != context_ids::kNoContext; }
};

// The communicator's context and members are final (its maker calls this
// before handing it out, before any operation on it): notices for its id are
// checked against its members from now on. Not empty if a notice held for
// its id names it: it is revoked now.
Marked settle(const Communicator& c);
// It is being destroyed: its marks go. False if its slot must stay taken
// (this process revoked it).
bool forget(const Communicator& c);
// This process revokes it. Empty if it was already revoked.
Marked revoke_own(const Communicator& c);
// A notice from `sender` (a world rank) for the communicator on `context`
// arrived: what it revoked here just now.
Marked notice(uint32_t context, int sender);

// A new start of the runtime: nothing settled, revoked, kept or held.
void reset();

bool is_revoked_slow(uint32_t context);
// What every send and receive start asks: one relaxed load until a
// communicator is revoked.
inline __attribute__((always_inline)) bool is_revoked(uint32_t context) {
  return any.load(std::memory_order_relaxed) && is_revoked_slow(context);
}

}  // namespace ferry::revocation
