#include "p2p/revoke.h"

#include <utility>

#include "base/context_id.h"
#include "common/debug.h"
#include "p2p/engine.h"
#include "progress/progress.h"

namespace ferry::p2p::revoke {
namespace {

// A communicator was just marked revoked here: the receives posted on its
// contexts fail, and on its local group's where it is an intercommunicator
// (base/revocation.h marks those with it).
void fail_here(const revocation::Marked& m) {
  fail_posted(m.context);
  fail_posted(m.context + 1);
  if (m.local_context != context_ids::kNoContext) {
    fail_posted(m.local_context);
    fail_posted(m.local_context + 1);
  }
}

}  // namespace

Err refusal() { return fail(MPIX_ERR_REVOKED, "the communicator was revoked (MPIX_Comm_revoke)"); }

void refuse(Request* r) {
  set_error(r, refusal());
  complete(r);
}

void arrived(uint32_t context, int sender) {
  revocation::Marked marked = revocation::notice(context, sender);
  if (!marked) return;
  FERRY_DEBUG(kComm, "communicator of context %u revoked by world rank %d", context, sender);
  fail_here(marked);
}

void settle(const Communicator* c) {
  progress::Lock lock;
  revocation::Marked marked = revocation::settle(*c);
  if (!marked) return;
  FERRY_DEBUG(kComm, "communicator of context %u revoked by a notice that came before it was made", c->context);
  fail_here(marked);
}

Err revoke(Communicator* c) {
  // Its context is agreed on when the MPI_Comm_idup that makes it completes;
  // until then it may not be used (MPI-4.0 §7.4.2), nor revoked.
  if (c->context == context_ids::kNoContext)
    return fail(MPI_ERR_COMM, "the communicator's MPI_Comm_idup has not completed yet");
  progress::Lock lock;
  if (revocation::Marked marked = revocation::revoke_own(*c)) fail_here(marked);
  // Every other process of the communicator: the remote group of an
  // intercommunicator and its own local group.
  Err first;
  auto tell = [&](int world_peer) {
    if (world_peer == communicators::world().rank) return;
    if (Err e = send_revoke(world_peer, c->context); e && first.ok()) first = std::move(e);
  };
  for (int r = 0; r < c->peer_count(); ++r) tell(c->world_rank(r));
  if (c->inter && c->local != nullptr)
    for (int r = 0; r < c->local->size; ++r) tell(c->local->world_rank(r));
  return first;
}

}  // namespace ferry::p2p::revoke
