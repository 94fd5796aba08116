// Message matching: posted receives and unexpected messages, per context.
//
// MPI-3.1 §3.5: messages between a pair of ranks on one communicator are
// non-overtaking. Both queues are kept in arrival/posting order and searched
// from the front, so the first match is always the oldest one; a wildcard
// receive (MPI_ANY_SOURCE, MPI_ANY_TAG) takes part in the same order.
//
// Keyed mode. On a communicator that asserts mpi_assert_no_any_source (or
// mpi_assert_no_any_tag, or both; MPI-4.0 §7.4.4) no receive is a wildcard
// in that field, so a message can only match receives with its own source
// (tag, both): each source (tag, pair) gets its own lane, a posted and an
// unexpected FIFO found by hash, searched in order as the whole queues would
// be. A match then costs O(1) in the receives pending for other sources or
// tags, instead of a scan of them all. A context changes mode only while it
// holds nothing (at a receive's posting), so no queued item ever changes
// place; a wildcard that comes anyway (the library's own traffic on a
// duplicate that inherited the hints) moves everything back to the ordered
// queues, unexpected messages in arrival order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
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
  size_t data_capacity = 0;      // what `data` holds when malloc'ed (a kept payload may hold more)
  bool data_complete = false;    // the eager payload has fully arrived
  Request* claimed_by = nullptr; // a receive matched it before its data arrived
  uint64_t arrival = 0;          // arrival order, to leave keyed mode in it
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
  // The oldest posted receive of `context`, removed, or nullptr (MPIX_Comm_revoke).
  Request* take_any_posted(uint32_t context);
  // MPI_Cancel of a send, at its receiver: the unexpected message that the
  // send (`sender_cookie` at `world_peer`) left here, taken out of the queue,
  // or nullptr if a receive (or MPI_Improbe) has taken it already.
  UnexpectedMessage* take_sent_by(uint32_t context, int world_peer, uint64_t sender_cookie);
  void add_unexpected(uint32_t context, UnexpectedMessage* m);
  void remove_unexpected(uint32_t context, UnexpectedMessage* m);

  size_t unexpected_count() const { return unexpected_count_; }
  // Whether a receive is posted on `context` (in keyed mode: whether its
  // lanes hold anything at all).
  bool has_posted(uint32_t context) const {
    if (context >= by_context_.size()) return false;
    const Queues& q = by_context_[context];
    return !q.posted.empty() || q.keyed_items > 0;
  }

 private:
  struct Lane {
    Fifo<Request> posted;
    Fifo<UnexpectedMessage> unexpected;
  };
  // Which envelope fields a context's lanes are keyed by (0: ordered queues).
  static constexpr uint8_t kBySource = 1;
  static constexpr uint8_t kByTag = 2;
  struct Queues {
    Fifo<Request> posted;
    Fifo<UnexpectedMessage> unexpected;
    uint8_t keyed = 0;                         // kBySource | kByTag: items live in lanes
    size_t keyed_items = 0;                    // receives and messages in lanes
    std::unordered_map<uint64_t, Lane> lanes;  // by the keyed fields of (source, tag)
    bool empty() const { return posted.empty() && unexpected.empty() && keyed_items == 0; }
    uint64_t lane_key(int source, int tag) const {
      uint32_t s = (keyed & kBySource) ? static_cast<uint32_t>(source) : 0;
      uint32_t t = (keyed & kByTag) ? static_cast<uint32_t>(tag) : 0;
      return (static_cast<uint64_t>(s) << 32) | t;
    }
    // Whether a receive or probe for (source, tag) names every keyed field.
    bool fits(int source, int tag) const {
      return (!(keyed & kBySource) || source != -2 /* MPI_ANY_SOURCE */) &&
             (!(keyed & kByTag) || tag != -1 /* MPI_ANY_TAG */);
    }
  };
  // Back to the ordered queues (a wildcard in a keyed field).
  void leave_keyed(Queues& q);
  Queues& queues(uint32_t context) {
    if (context >= by_context_.size()) [[unlikely]] grow(context);
    return by_context_[context];
  }
  void grow(uint32_t context);

  std::vector<Queues> by_context_;
  size_t unexpected_count_ = 0;
  uint64_t arrivals_ = 0;
  // Freed nodes kept for reuse, at most kMaxSpare: memory stays bounded
  // whatever the burst of unexpected traffic was.
  static constexpr size_t kMaxSpare = 64;
  std::vector<UnexpectedMessage*> spare_;
  // Freed eager payloads of kLeastKeptPayload-kMostKeptPayload bytes, at
  // most kMaxSparePayloads of them (512 KiB; the larger ones when more are
  // freed), kept for the next unexpected messages. Freed to glibc instead,
  // a payload of 48-64 KiB at the top of the heap took the free top past
  // its trim threshold, and the next one grew the heap again: page faults
  // on every message, which on a VM at 11 us a page made an exchange of
  // 64,000 B around 4 ranks on 2 cores take 280-415 us instead of 27-31
  // (docs/performance.md, 2026-12-02). A new payload is made a power of
  // two, so that later messages of nearby sizes fit it.
  struct Payload {
    void* data;
    size_t capacity;
  };
  static constexpr size_t kMaxSparePayloads = 8;
  static constexpr size_t kLeastKeptPayload = 4 * 1024;  // smaller ones come from glibc's bins
  static constexpr size_t kMostKeptPayload = 64 * 1024;
  std::vector<Payload> spare_payloads_;
  void* take_payload(size_t bytes, size_t* capacity);
  void keep_payload(void* data, size_t capacity);
};

}  // namespace ferry::p2p
