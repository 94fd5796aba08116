#include "p2p/matching.h"

#include <cstdlib>

#include "base/request.h"
#include "base/tool_events.h"
#include "p2p/tool_counters.h"

namespace ferry::p2p {

MatchingEngine::~MatchingEngine() {
  for (Queues& q : by_context_) {
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

Request* MatchingEngine::take_posted(uint32_t context, int source, int tag) {
  Fifo<Request>& posted = queues(context).posted;
  for (Request* r = posted.front(); r != nullptr; r = r->next) {
    if (envelope_matches(r->peer, r->tag, source, tag)) {
      posted.remove(r);
      return r;
    }
  }
  return nullptr;
}

UnexpectedMessage* MatchingEngine::find_unexpected(uint32_t context, int source, int tag, bool remove) {
  Fifo<UnexpectedMessage>& unexpected = queues(context).unexpected;
  for (UnexpectedMessage* m = unexpected.front(); m != nullptr; m = m->next) {
    if (envelope_matches(source, tag, m->header.source, m->header.tag)) {
      if (remove) {
        unexpected.remove(m);
        --unexpected_count_;
        counters::unexpected_queue.lower();
      }
      return m;
    }
  }
  return nullptr;
}

UnexpectedMessage* MatchingEngine::take_sent_by(uint32_t context, int world_peer, uint64_t sender_cookie) {
  Fifo<UnexpectedMessage>& unexpected = queues(context).unexpected;
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
  Fifo<Request>& posted = queues(context).posted;
  Request* r = posted.front();
  if (r != nullptr) posted.remove(r);
  return r;
}

void MatchingEngine::post(uint32_t context, Request* r) { queues(context).posted.push_back(r); }

bool MatchingEngine::unpost(uint32_t context, Request* r) {
  Fifo<Request>& posted = queues(context).posted;
  for (Request* p = posted.front(); p != nullptr; p = p->next) {
    if (p == r) {
      posted.remove(r);
      return true;
    }
  }
  return false;
}

void MatchingEngine::add_unexpected(uint32_t context, UnexpectedMessage* m) {
  queues(context).unexpected.push_back(m);
  ++unexpected_count_;
  counters::unexpected_queue.raise();
  tool::note_unexpected_message(m->header.source, m->header.tag, m->header.message_bytes);
}

void MatchingEngine::remove_unexpected(uint32_t context, UnexpectedMessage* m) {
  queues(context).unexpected.remove(m);
  --unexpected_count_;
  counters::unexpected_queue.lower();
}

}  // namespace ferry::p2p
