// Inside the p2p engine: its state and the steps that engine.cc and the
// inline receive (receive_now.cc) share. Included by those two files only;
// the rest of p2p/ sees engine.h and receive_now.h.
#pragma once

#include <cstdint>
#include <vector>

#include "base/error.h"
#include "p2p/engine.h"
#include "p2p/matching.h"
#include "p2p/receive_now.h"

namespace ferry::p2p::engine {

// Destination::context carries a receive request, an unexpected message or
// an inline receive; the low two bits say which (all are at least 8-byte
// aligned).
constexpr uintptr_t kUnexpectedBit = 1;
constexpr uintptr_t kReceiveNowBit = 2;
static_assert(alignof(ReceiveNow) >= 4);
inline void* tag_unexpected(UnexpectedMessage* m) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(m) | kUnexpectedBit);
}
inline bool is_unexpected(const void* context) { return (reinterpret_cast<uintptr_t>(context) & kUnexpectedBit) != 0; }
inline UnexpectedMessage* as_unexpected(void* context) {
  return reinterpret_cast<UnexpectedMessage*>(reinterpret_cast<uintptr_t>(context) & ~kUnexpectedBit);
}
inline void* tag_receive_now(ReceiveNow* n) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(n) | kReceiveNowBit);
}
inline bool is_receive_now(const void* context) { return (reinterpret_cast<uintptr_t>(context) & kReceiveNowBit) != 0; }
inline ReceiveNow* as_receive_now(void* context) {
  return reinterpret_cast<ReceiveNow*>(reinterpret_cast<uintptr_t>(context) & ~kReceiveNowBit);
}

class Handler final : public PacketHandler {
 public:
  Destination on_header(int peer, const PacketHeader& h) override;
  void on_payload(int peer, const PacketHeader& h, const Destination& d) override;
};

struct State {
  int world_rank = 0;
  std::vector<Route> routes;
  MatchingEngine matching;
  Handler handler;
  // The inline receive waiting for its message (begin_receive_now), if any:
  // ahead of every posted receive of its context, of which there were none
  // when it began.
  ReceiveNow* receive_now = nullptr;
  // Sends of host memory offered for the receiver to read in place and not
  // answered yet: while there are any, waits poll through the copies
  // (progress::expect_peer_copy); at none, they may sleep again.
  int host_offers = 0;
};
extern State* state;

// engine.cc's steps that the inline receive takes too.
// A receive of `capacity` bytes got its message: the status reports source,
// tag and size; the error, a truncation.
Err report_received(MPI_Status& status, const PacketHeader& h, size_t message_bytes, size_t capacity);
// A receive matched an unexpected message (eager data held, or a rendezvous
// request).
void deliver_unexpected(Request* r, UnexpectedMessage* m);
// MPIX_Comm_revoke at the receiver: a rendezvous request of the revoked
// communicator that no receive took is dropped, and its sender told.
void refuse_rendezvous(int peer, const PacketHeader& rts);

// The inline receive's part in the handler (receive_now.cc).
// An arriving message that the inline receive under way matches: that
// receive, which now waits for nothing else, or nullptr. Asked before the
// posted queue on every arrival (inline: a load and a compare when none
// waits): it was posted before anything there (MPI-3.1 §3.5).
inline ReceiveNow* take_receive_now(const PacketHeader& h) {
  ReceiveNow* n = state->receive_now;
  if (n == nullptr || n->context != h.context || !envelope_matches(n->source, n->tag, h.source, h.tag)) [[likely]]
    return nullptr;
  state->receive_now = nullptr;
  return n;
}
// Its eager message has landed in its buffer: status, truncation, done.
void finish_receive_now(ReceiveNow* n, const PacketHeader& h, size_t message_bytes);
// A rendezvous request `m` matched it: held for the caller's request.
void hand_back(ReceiveNow* n, UnexpectedMessage* m);
// MPIX_Comm_revoke (fail_posted): the inline receive waiting on `context`,
// if any, ends with MPIX_ERR_REVOKED.
void fail_receive_now(uint32_t context);

}  // namespace ferry::p2p::engine
