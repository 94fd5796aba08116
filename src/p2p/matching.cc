#include "p2p/matching.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

#include "base/communicator.h"
#include "base/request.h"
#include "base/tool_events.h"
#include "common/debug.h"
#include "p2p/tool_counters.h"

namespace ferry::p2p {
namespace {

// Lanes of a keyed context that holds nothing are dropped past this many,
// so a program that cycles through tags keeps bounded memory.
constexpr size_t kMaxIdleLanes = 4096;

// The fields a receive's context may be keyed by: those its communicator
// asserts it never gives as a wildcard (on its point-to-point context only).
uint8_t keys_for(const Request* r, uint32_t context) {
  const Communicator* c = r->comm;
  if (c == nullptr) return 0;
  // Partitioned communication never receives with a wildcard
  // (p2p/partitioned.h): its block receives, pre-posted by the thousand
  // and readied in any order, each find their message in O(1).
  if (context == c->partitioned_context()) return 1 | 2;  // by source and tag
  if (c->context != context) return 0;
  return static_cast<uint8_t>((c->assert_no_any_source ? 1 : 0) | (c->assert_no_any_tag ? 2 : 0));
}

// The first receive of `posted` that (source, tag) matches, removed.
Request* take_first(Fifo<Request>& posted, int source, int tag) {
  for (Request* r = posted.front(); r != nullptr; r = r->next) {
    if (envelope_matches(r->peer, r->tag, source, tag)) {
      posted.remove(r);
      return r;
    }
  }
  return nullptr;
}

UnexpectedMessage* first_match(Fifo<UnexpectedMessage>& unexpected, int source, int tag) {
  for (UnexpectedMessage* m = unexpected.front(); m != nullptr; m = m->next)
    if (envelope_matches(source, tag, m->header.source, m->header.tag)) return m;
  return nullptr;
}

}  // namespace

MatchingEngine::~MatchingEngine() {
  for (Queues& q : by_context_) {
    if (q.keyed) leave_keyed(q);
    while (UnexpectedMessage* m = q.unexpected.front()) {
      q.unexpected.remove(m);
      free_unexpected(m);
    }
  }
  for (UnexpectedMessage* m : spare_) delete m;
  for (Payload& p : spare_payloads_) std::free(p.data);
}

UnexpectedMessage* MatchingEngine::make_unexpected(const PacketHeader& h, int world_peer) {
  UnexpectedMessage* m;
  if (spare_.empty()) {
    m = new UnexpectedMessage;
  } else {
    m = spare_.back();
    spare_.pop_back();
    m->data = nullptr;
    m->data_complete = false;
    m->claimed_by = nullptr;
    m->prev = m->next = nullptr;
  }
  m->header = h;
  m->world_peer = world_peer;
  if (h.payload_bytes > kInlineUnexpectedBytes) m->data = take_payload(h.payload_bytes, &m->data_capacity);
  else if (h.payload_bytes > 0) m->data = m->inline_data;
  return m;
}

void* MatchingEngine::take_payload(size_t bytes, size_t* capacity) {
  if (bytes < kLeastKeptPayload || bytes > kMostKeptPayload) {
    *capacity = bytes;
    return std::malloc(bytes);
  }
  // The smallest kept payload that holds it (at most kMaxSparePayloads to look at).
  Payload* best = nullptr;
  for (Payload& p : spare_payloads_)
    if (p.capacity >= bytes && (best == nullptr || p.capacity < best->capacity)) best = &p;
  if (best != nullptr) {
    Payload p = *best;
    *best = spare_payloads_.back();
    spare_payloads_.pop_back();
    *capacity = p.capacity;
    return p.data;
  }
  *capacity = std::bit_ceil(bytes);
  return std::malloc(*capacity);
}

void MatchingEngine::keep_payload(void* data, size_t capacity) {
  if (data == nullptr || capacity < kLeastKeptPayload || capacity > kMostKeptPayload) return std::free(data);
  if (spare_payloads_.size() < kMaxSparePayloads) return spare_payloads_.push_back(Payload{data, capacity});
  // Full: the larger payloads are the ones worth keeping.
  auto smallest = std::min_element(spare_payloads_.begin(), spare_payloads_.end(),
                                   [](const Payload& a, const Payload& b) { return a.capacity < b.capacity; });
  if (smallest->capacity >= capacity) return std::free(data);
  std::free(smallest->data);
  *smallest = Payload{data, capacity};
}

void MatchingEngine::free_unexpected(UnexpectedMessage* m) {
  if (m->data != m->inline_data) keep_payload(m->data, m->data_capacity);
  if (spare_.size() < kMaxSpare) {
    spare_.push_back(m);
    return;
  }
  delete m;
}

void MatchingEngine::grow(uint32_t context) { by_context_.resize(context + 1); }

void MatchingEngine::leave_keyed(Queues& q) {
  // Receives: each lane is in posting order, and a message matches receives
  // of one lane only, so lane after lane keeps every order that matters.
  // Messages: a wildcard may match several lanes; arrival order decides.
  std::vector<UnexpectedMessage*> messages;
  for (auto& [key, lane] : q.lanes) {
    while (Request* r = lane.posted.front()) {
      lane.posted.remove(r);
      q.posted.push_back(r);
    }
    while (UnexpectedMessage* m = lane.unexpected.front()) {
      lane.unexpected.remove(m);
      messages.push_back(m);
    }
  }
  std::sort(messages.begin(), messages.end(),
            [](const UnexpectedMessage* a, const UnexpectedMessage* b) { return a->arrival < b->arrival; });
  for (UnexpectedMessage* m : messages) q.unexpected.push_back(m);
  q.lanes.clear();
  q.keyed_items = 0;
  q.keyed = 0;
}

Request* MatchingEngine::take_posted(uint32_t context, int source, int tag) {
  Queues& q = queues(context);
  if (q.keyed) {
    auto it = q.lanes.find(q.lane_key(source, tag));
    if (it == q.lanes.end()) return nullptr;
    Request* r = take_first(it->second.posted, source, tag);
    if (r != nullptr) --q.keyed_items;
    return r;
  }
  return take_first(q.posted, source, tag);
}

UnexpectedMessage* MatchingEngine::find_unexpected(uint32_t context, int source, int tag, bool remove) {
  Queues& q = queues(context);
  if (q.keyed && !q.fits(source, tag)) leave_keyed(q);
  Fifo<UnexpectedMessage>* unexpected = &q.unexpected;
  if (q.keyed) {
    auto it = q.lanes.find(q.lane_key(source, tag));
    if (it == q.lanes.end()) return nullptr;
    unexpected = &it->second.unexpected;
  }
  UnexpectedMessage* m = first_match(*unexpected, source, tag);
  if (m != nullptr && remove) {
    unexpected->remove(m);
    --unexpected_count_;
    counters::unexpected_queue.lower();
    if (q.keyed) --q.keyed_items;
  }
  return m;
}

UnexpectedMessage* MatchingEngine::take_sent_by(uint32_t context, int world_peer, uint64_t sender_cookie) {
  Queues& q = queues(context);
  if (q.keyed) leave_keyed(q);  // MPI_Cancel of a send: rare, and any lane may hold it
  Fifo<UnexpectedMessage>& unexpected = q.unexpected;
  for (UnexpectedMessage* m = unexpected.front(); m != nullptr; m = m->next) {
    if (m->world_peer == world_peer && m->header.sender_cookie == sender_cookie) {
      unexpected.remove(m);
      --unexpected_count_;
      counters::unexpected_queue.lower();
      return m;
    }
  }
  return nullptr;
}

Request* MatchingEngine::take_any_posted(uint32_t context) {
  Queues& q = queues(context);
  if (q.keyed) leave_keyed(q);  // revoke: rare
  Request* r = q.posted.front();
  if (r != nullptr) q.posted.remove(r);
  return r;
}

void MatchingEngine::post(uint32_t context, Request* r) {
  Queues& q = queues(context);
  // The mode changes only while the context holds nothing.
  if (q.empty()) {
    uint8_t keys = keys_for(r, context);
    if (keys != q.keyed) {
      FERRY_DEBUG(kP2p, "context %u: receives %s", context,
                  keys == (kBySource | kByTag) ? "keyed by source and tag"
                  : keys == kBySource          ? "keyed by source"
                  : keys == kByTag             ? "keyed by tag"
                                               : "in posting order");
      q.lanes.clear();
    } else if (q.lanes.size() > kMaxIdleLanes) {
      q.lanes.clear();
    }
    q.keyed = keys;
  }
  if (q.keyed && !q.fits(r->peer, r->tag)) {
    FERRY_DEBUG(kP2p, "context %u: a wildcard receive (source %d, tag %d) despite the assertions: back to "
                      "posting order", context, r->peer, r->tag);
    leave_keyed(q);
  }
  if (q.keyed) {
    q.lanes[q.lane_key(r->peer, r->tag)].posted.push_back(r);
    ++q.keyed_items;
    return;
  }
  q.posted.push_back(r);
}

bool MatchingEngine::unpost(uint32_t context, Request* r) {
  Queues& q = queues(context);
  if (q.keyed) leave_keyed(q);  // MPI_Cancel: rare
  Fifo<Request>& posted = q.posted;
  for (Request* p = posted.front(); p != nullptr; p = p->next) {
    if (p == r) {
      posted.remove(r);
      return true;
    }
  }
  return false;
}

void MatchingEngine::add_unexpected(uint32_t context, UnexpectedMessage* m) {
  Queues& q = queues(context);
  m->arrival = ++arrivals_;
  ++unexpected_count_;
  counters::unexpected_queue.raise();
  tool::note_unexpected_message(m->header.source, m->header.tag, m->header.message_bytes);
  if (q.keyed) {
    q.lanes[q.lane_key(m->header.source, m->header.tag)].unexpected.push_back(m);
    ++q.keyed_items;
    return;
  }
  q.unexpected.push_back(m);
}

void MatchingEngine::remove_unexpected(uint32_t context, UnexpectedMessage* m) {
  Queues& q = queues(context);
  --unexpected_count_;
  counters::unexpected_queue.lower();
  if (q.keyed) {
    q.lanes[q.lane_key(m->header.source, m->header.tag)].unexpected.remove(m);
    --q.keyed_items;
    return;
  }
  q.unexpected.remove(m);
}

}  // namespace ferry::p2p
