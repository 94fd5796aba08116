#include "p2p/matching.h"

#include <algorithm>
#include <cstdlib>

#include "base/communicator.h"
#include "base/request.h"

namespace ferry::p2p {
namespace {

constexpr int kAnySource = -2;  // MPI_ANY_SOURCE
constexpr int kAnyTag = -1;     // MPI_ANY_TAG
// Lanes of an exact context that holds nothing are dropped past this many,
// so a program that cycles through tags keeps bounded memory.
constexpr size_t kMaxIdleLanes = 4096;

// A receive on its communicator's point-to-point context, where the
// communicator asserts that it never uses a wildcard.
bool wants_exact(const Request* r, uint32_t context) {
  const Communicator* c = r->comm;
  return c != nullptr && c->context == context && c->assert_no_any_source && c->assert_no_any_tag;
}

}  // namespace

MatchingEngine::~MatchingEngine() {
  for (Queues& q : by_context_) {
    if (q.exact) leave_exact(q);
    while (UnexpectedMessage* m = q.unexpected.front()) {
      q.unexpected.remove(m);
      free_unexpected(m);
    }
  }
  for (UnexpectedMessage* m : spare_) delete m;
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
  if (h.payload_bytes > kInlineUnexpectedBytes) m->data = std::malloc(h.payload_bytes);
  else if (h.payload_bytes > 0) m->data = m->inline_data;
  return m;
}

void MatchingEngine::free_unexpected(UnexpectedMessage* m) {
  if (m->data != m->inline_data) std::free(m->data);
  if (spare_.size() < kMaxSpare) {
    spare_.push_back(m);
    return;
  }
  delete m;
}

void MatchingEngine::grow(uint32_t context) { by_context_.resize(context + 1); }

void MatchingEngine::leave_exact(Queues& q) {
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
  q.exact_items = 0;
  q.exact = false;
}

Request* MatchingEngine::take_posted(uint32_t context, int source, int tag) {
  Queues& q = queues(context);
  if (q.exact) {
    auto it = q.lanes.find(lane_key(source, tag));
    if (it == q.lanes.end()) return nullptr;
    Request* r = it->second.posted.front();
    if (r != nullptr) {
      it->second.posted.remove(r);
      --q.exact_items;
    }
    return r;
  }
  Fifo<Request>& posted = q.posted;
  for (Request* r = posted.front(); r != nullptr; r = r->next) {
    if (envelope_matches(r->peer, r->tag, source, tag)) {
      posted.remove(r);
      return r;
    }
  }
  return nullptr;
}

UnexpectedMessage* MatchingEngine::find_unexpected(uint32_t context, int source, int tag, bool remove) {
  Queues& q = queues(context);
  if (q.exact && (source == kAnySource || tag == kAnyTag)) leave_exact(q);
  if (q.exact) {
    auto it = q.lanes.find(lane_key(source, tag));
    if (it == q.lanes.end()) return nullptr;
    UnexpectedMessage* m = it->second.unexpected.front();
    if (m != nullptr && remove) {
      it->second.unexpected.remove(m);
      --q.exact_items;
      --unexpected_count_;
    }
    return m;
  }
  Fifo<UnexpectedMessage>& unexpected = q.unexpected;
  for (UnexpectedMessage* m = unexpected.front(); m != nullptr; m = m->next) {
    if (envelope_matches(source, tag, m->header.source, m->header.tag)) {
      if (remove) {
        unexpected.remove(m);
        --unexpected_count_;
      }
      return m;
    }
  }
  return nullptr;
}

UnexpectedMessage* MatchingEngine::take_sent_by(uint32_t context, int world_peer, uint64_t sender_cookie) {
  Queues& q = queues(context);
  if (q.exact) leave_exact(q);  // MPI_Cancel of a send: rare, and any lane may hold it
  Fifo<UnexpectedMessage>& unexpected = q.unexpected;
  for (UnexpectedMessage* m = unexpected.front(); m != nullptr; m = m->next) {
    if (m->world_peer == world_peer && m->header.sender_cookie == sender_cookie) {
      unexpected.remove(m);
      --unexpected_count_;
      return m;
    }
  }
  return nullptr;
}

void MatchingEngine::post(uint32_t context, Request* r) {
  Queues& q = queues(context);
  // The mode changes only while the context holds nothing.
  if (q.empty()) {
    q.exact = wants_exact(r, context);
    if (!q.exact || q.lanes.size() > kMaxIdleLanes) q.lanes.clear();
  }
  if (q.exact && (r->peer == kAnySource || r->tag == kAnyTag)) leave_exact(q);
  if (q.exact) {
    q.lanes[lane_key(r->peer, r->tag)].posted.push_back(r);
    ++q.exact_items;
    return;
  }
  q.posted.push_back(r);
}

bool MatchingEngine::unpost(uint32_t context, Request* r) {
  Queues& q = queues(context);
  if (q.exact) leave_exact(q);  // MPI_Cancel: rare
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
  if (q.exact) {
    q.lanes[lane_key(m->header.source, m->header.tag)].unexpected.push_back(m);
    ++q.exact_items;
    return;
  }
  q.unexpected.push_back(m);
}

void MatchingEngine::remove_unexpected(uint32_t context, UnexpectedMessage* m) {
  Queues& q = queues(context);
  --unexpected_count_;
  if (q.exact) {
    q.lanes[lane_key(m->header.source, m->header.tag)].unexpected.remove(m);
    --q.exact_items;
    return;
  }
  q.unexpected.remove(m);
}

}  // namespace ferry::p2p
