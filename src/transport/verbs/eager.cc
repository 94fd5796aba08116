// Eager packets of the verbs transport: frames into the peer's shared
// receive queue, paced by credits (verbs/credits.h).
//
// A packet goes as one frame if it fits a receive buffer, else as a kStart
// frame and kMore frames (RC keeps them in order, and the receiver's CQ
// yields one QP's receives in order). A frame that fits the QP's inline
// limit is copied into the send request itself (IBV_SEND_INLINE: no send
// buffer, no DMA read of it by the NIC); a larger one is copied into a
// registered send buffer. Either way the packet's payload is free once its
// last frame is posted, so on_sent runs then. Only every kSignalEvery-th
// request asks for a completion, which retires the ones before it too; a
// peer that stops sending with unsignaled requests still holding send
// buffers gets a signaled zero-length RDMA WRITE when the buffers run out
// (flush_unsignaled), so they always come back.
#include <cstring>

#include "transport/verbs/verbs_transport.h"

namespace ferry::transport::verbs {
namespace {

constexpr int kSignalEvery = 16;

}  // namespace

const char* VerbsTransport::send(int peer, SendItem* item) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.state == Peer::State::kFailed) return "the verbs connection to this rank failed earlier";
  item->sent = 0;
  item->next = nullptr;
  if (p.tail) p.tail->next = item;
  else p.head = item;
  p.tail = item;
  ++queued_items_;
  if (p.state == Peer::State::kIdle) start_connect(peer, p);
  else if (p.state == Peer::State::kConnected) push(peer, p);
  return nullptr;
}

bool VerbsTransport::post_receive_buffers(int count, std::string* error) {
  size_t bytes = static_cast<size_t>(count) * buffer_bytes_;
  auto block = std::make_unique<uint8_t[]>(bytes);
  Region region;
  if (!device_->register_memory(block.get(), bytes, &region, error)) return false;
  for (int i = 0; i < count; ++i) {
    uint8_t* buffer = block.get() + static_cast<size_t>(i) * buffer_bytes_;
    receive_slots_.push_back(buffer);
    if (!device_->post_receive(receive_slots_.size() - 1, buffer, static_cast<uint32_t>(buffer_bytes_), region.lkey)) {
      *error = "cannot post receive buffers to the shared receive queue: it is sized for " +
               std::to_string(kMaxPeersSized) + " connected peers of FERRY_IB_CREDITS buffers each";
      return false;
    }
  }
  receive_lkeys_.push_back(region.lkey);
  blocks_.emplace_back(std::move(block), region);
  return true;
}

int VerbsTransport::take_send_slot() {
  if (free_send_slots_.empty()) return -1;
  int slot = free_send_slots_.back();
  free_send_slots_.pop_back();
  return slot;
}

void VerbsTransport::flush_unsignaled(int peer, Peer& p) {
  if (p.flush_posted || p.unsignaled == 0 || p.qp < 0) return;
  SendRequest r;
  r.opcode = Opcode::kWrite;  // zero bytes: touches no memory, needs no key
  r.signaled = true;
  p.flush_posted = post(peer, p, r, Posted{});
}

// One frame: the frame header, then the packet header (kStart), then
// `part_bytes` of payload.
bool VerbsTransport::post_frame(int peer, Peer& p, FrameKind kind, const void* part, size_t part_bytes,
                                const PacketHeader* header) {
  size_t bytes = sizeof(Frame) + (header ? sizeof(PacketHeader) : 0) + part_bytes;
  bool inline_frame = static_cast<int>(bytes) <= device_->max_inline();
  int slot = -1;
  uint8_t scratch[512];
  uint8_t* out = scratch;
  if (!inline_frame || bytes > sizeof scratch) {
    inline_frame = false;
    if ((slot = take_send_slot()) < 0) return false;
    out = send_buffers_ + static_cast<size_t>(slot) * buffer_bytes_;
  }
  Frame f{kind, 0, 0, 0};
  if (kind == FrameKind::kCredits) {
    f.credits = p.credits.spend_update();
  } else {
    Credits::Returned back = p.credits.spend();
    f.credits = back.credits;
    f.reserve_returned = back.reserve ? 1 : 0;
  }
  std::memcpy(out, &f, sizeof f);
  size_t at = sizeof f;
  if (header) {
    std::memcpy(out + at, header, sizeof *header);
    at += sizeof *header;
  }
  if (part_bytes > 0) std::memcpy(out + at, part, part_bytes);
  SendRequest r;
  r.opcode = Opcode::kSend;
  r.local = out;
  r.bytes = static_cast<uint32_t>(bytes);
  r.lkey = send_lkey_;
  r.inline_data = inline_frame;
  // Ask for a completion now and then, and always when send buffers or
  // send-queue room run low, so that they come back.
  r.signaled = p.unsignaled + 1 >= kSignalEvery || free_send_slots_.size() < static_cast<size_t>(kSignalEvery) ||
               p.posted.size() + kSignalEvery >= kMaxPostedPerPeer;
  Posted entry;
  entry.send_slot = slot;
  ++frames_;
  return post(peer, p, r, entry);
}

// Frames as much of the peer's queue as credits, send buffers and the send
// queue allow; posts waiting one-sided requests; returns credits nobody carried.
void VerbsTransport::push(int peer, Peer& p) {
  if (p.state != Peer::State::kConnected) return;
  while (!p.one_sided.empty() && p.posted.size() < kMaxPostedPerPeer) {
    OneSided* op = p.one_sided.front();
    if (atomic_op(*op) && free_send_slots_.empty()) break;  // its old value lands in a send buffer
    p.one_sided.pop_front();
    if (!post_one_sided(p, op)) return;
  }
  size_t first_room = buffer_bytes_ - sizeof(Frame) - sizeof(PacketHeader);
  size_t more_room = buffer_bytes_ - sizeof(Frame);
  while (p.head != nullptr && p.credits.can_send() && p.posted.size() < kMaxPostedPerPeer) {
    SendItem* item = p.head;
    const uint8_t* payload = static_cast<const uint8_t*>(item->payload);
    uint64_t total = item->header.payload_bytes;
    bool ok;
    size_t part;
    if (!p.head_started) {
      part = static_cast<size_t>(std::min<uint64_t>(total, first_room));
      ok = post_frame(peer, p, FrameKind::kStart, payload, part, &item->header);
    } else {
      part = static_cast<size_t>(std::min<uint64_t>(total - p.head_sent, more_room));
      ok = post_frame(peer, p, FrameKind::kMore, payload + p.head_sent, part, nullptr);
    }
    if (!ok) {
      if (p.state == Peer::State::kFailed) return;
      // Out of send buffers: get the unsignaled ones back, then retry from
      // the completion that frees them.
      for (size_t i = 0; i < peers_.size(); ++i) flush_unsignaled(static_cast<int>(i), peers_[i]);
      return;
    }
    p.head_started = true;
    p.head_sent += part;
    if (p.head_sent == total) {
      p.head = item->next;
      if (p.head == nullptr) p.tail = nullptr;
      p.head_sent = 0;
      p.head_started = false;
      --queued_items_;
      if (item->on_sent) item->on_sent(item);  // may send again: p.head is consistent
    }
  }
  if (p.head == nullptr && p.credits.can_send_update()) post_frame(peer, p, FrameKind::kCredits, nullptr, 0, nullptr);
}

void VerbsTransport::on_receive(const Completion& c) {
  if (c.status != Status::kSuccess) return;  // flushed at teardown, or the QP failed: reported on the send side
  auto it = peer_of_qpn_.find(c.qp_num);
  uint8_t* buffer = receive_slots_[c.wr_id];
  if (it != peer_of_qpn_.end()) {
    int peer = it->second;
    Peer& p = peers_[static_cast<size_t>(peer)];
    Frame f;
    std::memcpy(&f, buffer, sizeof f);
    p.credits.on_returned(f.credits, f.reserve_returned != 0);
    // The peer's first frame shows its QP is ready: we may send too.
    if (p.state == Peer::State::kAccepted) p.state = Peer::State::kConnected;
    deliver(peer, p, buffer, c.bytes);
    p.credits.on_consumed(f.kind == FrameKind::kCredits);
  }
  // The buffer goes back before anything is sent that may be answered.
  size_t block = c.wr_id / static_cast<size_t>(options_.credits + 1);
  device_->post_receive(c.wr_id, buffer, static_cast<uint32_t>(buffer_bytes_), receive_lkeys_[block]);
  if (it != peer_of_qpn_.end()) push(it->second, peers_[static_cast<size_t>(it->second)]);
}

void VerbsTransport::deliver(int peer, Peer& p, const uint8_t* frame, size_t bytes) {
  Frame f;
  std::memcpy(&f, frame, sizeof f);
  const uint8_t* data = frame + sizeof f;
  size_t data_bytes = bytes - sizeof f;
  if (f.kind == FrameKind::kStart) {
    std::memcpy(&p.incoming, data, sizeof p.incoming);
    data += sizeof p.incoming;
    data_bytes -= sizeof p.incoming;
    p.received = 0;
    p.receiving = true;
    p.destination = handler_->on_header(peer, p.incoming);
  } else if (f.kind != FrameKind::kMore || !p.receiving) {
    return;
  }
  // Bytes beyond the destination's capacity are dropped (truncation is the
  // receiver's to report).
  if (p.received < p.destination.capacity && data_bytes > 0) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(data_bytes, p.destination.capacity - p.received));
    std::memcpy(static_cast<uint8_t*>(p.destination.data) + p.received, data, n);
  }
  p.received += data_bytes;
  if (p.received >= p.incoming.payload_bytes) {
    p.receiving = false;
    handler_->on_payload(peer, p.incoming, p.destination);
  }
}

}  // namespace ferry::transport::verbs
