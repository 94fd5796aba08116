// The inline blocking receive (p2p/receive_now.h): a receive on the caller's
// stack, in the engine's one `receive_now` slot instead of the posted queue,
// which the handler asks first (engine_state.h, take_receive_now).
#include "p2p/receive_now.h"

#include <algorithm>
#include <cstring>

#include "base/request.h"
#include "p2p/engine_state.h"
#include "p2p/revoke.h"
#include "progress/progress.h"

namespace ferry::p2p {
namespace engine {
namespace {

// Ends `n` with error `e` (none: a success), its status already written:
// the caller's wait is over.
void end_receive_now(ReceiveNow* n, const Err& e) {
  if (e) [[unlikely]] n->error = error_code::make(e.mpi_class(), e.message());
  n->state = ReceiveNow::State::kDone;
  progress::note_event();
}

}  // namespace

void finish_receive_now(ReceiveNow* n, const PacketHeader& h, size_t message_bytes) {
  end_receive_now(n, report_received(n->status, h, message_bytes, n->bytes));
}

// `n` cannot run the rendezvous without a request: it holds the request
// packet, in no queue, until the caller's request takes it over
// (start_fallback_recv). Put back among the unexpected, it could be taken
// meanwhile by a receive posted later in the same progress pass (a task's, a
// grequest poll_fn's) though `n` matched it first (MPI-3.1 §3.5;
// tests/mpi/p2p_recv_inline_overtake.c).
void hand_back(ReceiveNow* n, UnexpectedMessage* m) {
  m->data_complete = true;
  n->message = m;
  n->state = ReceiveNow::State::kFallback;
  progress::note_event();
}

void fail_receive_now(uint32_t context) {
  ReceiveNow* n = state->receive_now;
  if (n == nullptr || n->context != context) return;
  state->receive_now = nullptr;
  end_receive_now(n, revoke::refusal());
}

}  // namespace engine

using engine::state;

bool begin_receive_now(ReceiveNow* n) {
  if (state->receive_now != nullptr || state->matching.has_posted(n->context) || revocation::is_revoked(n->context))
    return false;
  if (UnexpectedMessage* m = state->matching.find_unexpected(n->context, n->source, n->tag, false)) {
    // Its message came first: copied out if it is an eager one whole; the
    // general path receives any other.
    if (m->header.type != PacketType::kEager || !m->data_complete) return false;
    state->matching.remove_unexpected(n->context, m);
    size_t copy = std::min<size_t>(m->header.payload_bytes, n->bytes);
    if (copy > 0) std::memcpy(n->buffer, m->data, copy);
    engine::finish_receive_now(n, m->header, m->header.payload_bytes);
    state->matching.free_unexpected(m);
    return true;
  }
  n->state = ReceiveNow::State::kWaiting;
  state->receive_now = n;
  return true;
}

void start_fallback_recv(Request* r, ReceiveNow* n) {
  UnexpectedMessage* m = n->message;
  n->message = nullptr;
  if (revocation::is_revoked(r->context)) [[unlikely]] {
    // Revoked since it matched: refused as fail_posted refuses what it
    // finds among the unexpected, and the receive as start_recv would.
    engine::refuse_rendezvous(m->world_peer, m->header);
    state->matching.free_unexpected(m);
    return revoke::refuse(r);
  }
  engine::deliver_unexpected(r, m);
}

}  // namespace ferry::p2p
