// Message matching: posted receives and unexpected messages, per context.
//
// MPI-3.1 §3.5: messages between a pair of ranks on one communicator are
// non-overtaking. Both queues are kept in arrival/posting order and searched
// from the front, so the first match is always the oldest one; a wildcard
// receive (MPI_ANY_SOURCE, MPI_ANY_TAG) takes part in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transport/packet.h"

namespace ferry {
struct Request;
}

namespace ferry::p2p {

// The packets the protocols exchange (transport/packet.h).
using transport::PacketHeader;
using transport::PacketType;
using transport::kFlagCancelled;
using transport::kFlagChunked;
using transport::kFlagDeviceMemory;
using transport::kFlagDirect;

// Eager payloads up to this size are kept inside the UnexpectedMessage.
constexpr size_t kInlineUnexpectedBytes = 80;  // a registration key fits (transport/memory.h)

// A message that arrived before its receive was posted: the header, and for
// an eager message its data (owned here), for a rendezvous one nothing yet.
// Made and freed by MatchingEngine (make_unexpected, free_unexpected).
struct UnexpectedMessage {
  PacketHeader header;
  int world_peer = -1;
  void* data = nullptr;          // eager payload: inline_data, or malloc'ed when larger
  bool data_complete = false;    // the eager payload has fully arrived
  Request* claimed_by = nullptr; // a receive matched it before its data arrived
  UnexpectedMessage* prev = nullptr;
  UnexpectedMessage* next = nullptr;
  alignas(16) char inline_data[kInlineUnexpectedBytes];
};

// Intrusive FIFO list over nodes with prev/next members.
template <typename Node>
class Fifo {
 public:
  bool empty() const { return head_ == nullptr; }
  Node* front() const { return head_; }
  void push_back(Node* n) {
    n->next = nullptr;
    n->prev = tail_;
    if (tail_) tail_->next = n;
    else head_ = n;
    tail_ = n;
  }
  void remove(Node* n) {
    if (n->prev) n->prev->next = n->next;
    else head_ = n->next;
    if (n->next) n->next->prev = n->prev;
    else tail_ = n->prev;
    n->prev = n->next = nullptr;
  }

 private:
  Node* head_ = nullptr;
  Node* tail_ = nullptr;
};

inline bool envelope_matches(int want_source, int want_tag, int source, int tag) {
  return (want_source == source || want_source == -2 /* MPI_ANY_SOURCE */) &&
         (want_tag == tag || want_tag == -1 /* MPI_ANY_TAG */);
}

class MatchingEngine {
 public:
  MatchingEngine() = default;
  MatchingEngine(const MatchingEngine&) = delete;
  MatchingEngine& operator=(const MatchingEngine&) = delete;
  // Frees the unexpected messages nobody received (their data too).
  ~MatchingEngine();

  // A message arriving unexpected, with room for `h.payload_bytes` at `data`
  // (nullptr if the allocation failed). Small ones (a barrier's, a short
  // control message) cost no allocation: their node comes from a few kept
  // spare and their payload fits inside it.
  UnexpectedMessage* make_unexpected(const PacketHeader& h, int world_peer);
  // Frees a message received or discarded, and its data.
  void free_unexpected(UnexpectedMessage* m);

  // An arriving message: the oldest posted receive it matches, removed from
  // the posted queue, or nullptr.
  Request* take_posted(uint32_t context, int source, int tag);
  // A receive being posted: the oldest unexpected message it matches,
  // removed from the queue if `remove`, or nullptr.
  UnexpectedMessage* find_unexpected(uint32_t context, int source, int tag, bool remove);
  void post(uint32_t context, Request* r);
  // Takes a posted receive back (MPI_Cancel). Returns false if not posted.
  bool unpost(uint32_t context, Request* r);
  // MPI_Cancel of a send, at its receiver: the unexpected message that the
  // send (`sender_cookie` at `world_peer`) left here, taken out of the queue,
  // or nullptr if a receive (or MPI_Improbe) has taken it already.
  UnexpectedMessage* take_sent_by(uint32_t context, int world_peer, uint64_t sender_cookie);
  void add_unexpected(uint32_t context, UnexpectedMessage* m);
  void remove_unexpected(uint32_t context, UnexpectedMessage* m);

  size_t unexpected_count() const { return unexpected_count_; }

 private:
  struct Queues {
    Fifo<Request> posted;
    Fifo<UnexpectedMessage> unexpected;
  };
  Queues& queues(uint32_t context) {
    if (context >= by_context_.size()) [[unlikely]] grow(context);
    return by_context_[context];
  }
  void grow(uint32_t context);

  std::vector<Queues> by_context_;
  size_t unexpected_count_ = 0;
  // Freed nodes kept for reuse, at most kMaxSpare: memory stays bounded
  // whatever the burst of unexpected traffic was.
  static constexpr size_t kMaxSpare = 64;
  std::vector<UnexpectedMessage*> spare_;
};

}  // namespace ferry::p2p
