#include "p2p/shm/shm_transport.h"

#include <algorithm>
#include <cstring>

#include "common/debug.h"

namespace ferry::p2p::shm {
namespace {

constexpr size_t kHeaderBytes = sizeof(PacketHeader);
// Large payloads are published in pieces of this size, so the receiver
// starts copying out while the sender still copies in.
constexpr size_t kPieceBytes = 32 * 1024;

}  // namespace

struct ShmTransport::Outgoing {
  Ring ring;
  SendItem* head = nullptr;
  SendItem* tail = nullptr;
  bool flushing = false;  // a packet's on_sent may queue the next one
};

struct ShmTransport::Incoming {
  Ring ring;
  int peer = -1;
  bool in_payload = false;
  PacketHeader header{};
  Destination destination{};
  uint64_t payload_done = 0;
};

ShmTransport::ShmTransport(int my_rank, int world_size, std::vector<int> local_peers, PacketHandler* handler,
                           size_t ring_bytes)
    : my_rank_(my_rank),
      local_peers_(std::move(local_peers)),
      local_index_(static_cast<size_t>(world_size), -1),
      handler_(handler),
      ring_bytes_(ring_bytes) {
  // Ring slots are numbered by local index: every rank must see one order.
  std::sort(local_peers_.begin(), local_peers_.end());
  for (size_t i = 0; i < local_peers_.size(); ++i) {
    local_index_[static_cast<size_t>(local_peers_[i])] = static_cast<int>(i);
    if (local_peers_[i] == my_rank_) my_local_ = static_cast<int>(i);
  }
  peer_segments_.resize(local_peers_.size());
  outgoing_.resize(local_peers_.size());
  incoming_.resize(local_peers_.size());
}

ShmTransport::~ShmTransport() = default;

size_t ShmTransport::segment_bytes() const {
  return (local_peers_.size() - 1) * ring_footprint(ring_bytes_);
}

bool ShmTransport::reaches(int peer) const {
  return peer != my_rank_ && peer >= 0 && static_cast<size_t>(peer) < local_index_.size() &&
         local_index_[static_cast<size_t>(peer)] >= 0;
}

bool ShmTransport::create(const std::string& name, std::string* error) {
  if (!own_.create(name, segment_bytes(), error)) return false;
  for (size_t i = 0; i < local_peers_.size(); ++i) {
    if (static_cast<int>(i) == my_local_) continue;
    size_t at = slot(static_cast<int>(i), my_local_) * ring_footprint(ring_bytes_);
    incoming_[i].ring = Ring(own_.data() + at, ring_bytes_);
    incoming_[i].peer = local_peers_[i];
  }
  return true;
}

bool ShmTransport::attach(int peer, const std::string& name, std::string* error) {
  int li = local_index_[static_cast<size_t>(peer)];
  Segment& segment = peer_segments_[static_cast<size_t>(li)];
  if (!segment.attach(name, segment_bytes(), error)) return false;
  size_t at = slot(my_local_, li) * ring_footprint(ring_bytes_);
  outgoing_[static_cast<size_t>(li)].ring = Ring(segment.data() + at, ring_bytes_);
  if (debug::on(debug::kP2p) || debug::on(debug::kTcp)) debug::print("peer %d via shm", peer);
  return true;
}

void ShmTransport::unlink() { own_.unlink(); }

const char* ShmTransport::send(int peer, SendItem* item) {
  Outgoing& out = outgoing_[static_cast<size_t>(local_index_[static_cast<size_t>(peer)])];
  item->sent = 0;
  item->next = nullptr;
  if (out.tail) out.tail->next = item;
  else out.head = item;
  out.tail = item;
  ++queued_items_;
  // Straight into the ring when nothing is ahead of it; a flush already
  // running (we are inside an on_sent) picks the item up itself.
  if (!out.flushing) flush(out);
  return nullptr;
}

int ShmTransport::flush(Outgoing& out) {
  int finished = 0;
  out.flushing = true;
  while (SendItem* item = out.head) {
    if (item->sent < kHeaderBytes) {
      size_t n = out.ring.write(reinterpret_cast<const char*>(&item->header) + item->sent, kHeaderBytes - item->sent);
      item->sent += n;
      if (item->sent < kHeaderBytes) break;  // ring full
    }
    bool full = false;
    while (item->sent < kHeaderBytes + item->header.payload_bytes) {
      uint64_t done = item->sent - kHeaderBytes;
      size_t want = static_cast<size_t>(std::min<uint64_t>(item->header.payload_bytes - done, kPieceBytes));
      size_t n = out.ring.write(static_cast<const char*>(item->payload) + done, want);
      item->sent += n;
      if (n < want) {
        full = true;
        break;
      }
    }
    if (full) break;
    out.head = item->next;
    if (out.head == nullptr) out.tail = nullptr;
    --queued_items_;
    ++finished;
    if (item->on_sent) item->on_sent(item);
  }
  out.flushing = false;
  return finished;
}

int ShmTransport::drain(Incoming& in) {
  int received = 0;
  for (;;) {
    size_t avail = in.ring.readable();
    if (!in.in_payload) {
      if (avail < kHeaderBytes) return received;
      in.ring.read(&in.header, kHeaderBytes);
      in.destination = handler_->on_header(in.peer, in.header);
      in.payload_done = 0;
      if (in.header.payload_bytes == 0) {
        ++received;
        handler_->on_payload(in.peer, in.header, in.destination);
        continue;
      }
      in.in_payload = true;
      continue;
    }
    if (avail == 0) return received;
    size_t take = static_cast<size_t>(std::min<uint64_t>({avail, in.header.payload_bytes - in.payload_done, kPieceBytes}));
    // Bytes beyond the destination's capacity are consumed and dropped.
    if (in.payload_done >= in.destination.capacity) {
      in.ring.read(nullptr, take);
    } else {
      size_t keep = static_cast<size_t>(std::min<uint64_t>(take, in.destination.capacity - in.payload_done));
      in.ring.read(static_cast<char*>(in.destination.data) + in.payload_done, keep);
      if (take > keep) in.ring.read(nullptr, take - keep);
    }
    in.payload_done += take;
    ++received;  // a piece moved: worth another pass before any sleep
    if (in.payload_done == in.header.payload_bytes) {
      in.in_payload = false;
      handler_->on_payload(in.peer, in.header, in.destination);
    }
  }
}

int ShmTransport::progress() {
  int events = 0;
  for (size_t i = 0; i < local_peers_.size(); ++i) {
    if (static_cast<int>(i) == my_local_) continue;
    events += drain(incoming_[i]);
    Outgoing& out = outgoing_[i];
    if (out.head != nullptr && !out.flushing) events += flush(out);
  }
  return events;
}

}  // namespace ferry::p2p::shm
