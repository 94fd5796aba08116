#include "p2p/engine.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/debug.h"
#include "base/communicator.h"
#include "base/datatype.h"
#include "base/request.h"
#include "base/type_pack.h"
#include "p2p/data_access.h"
#include "p2p/engine_state.h"
#include "p2p/pack_stream.h"
#include "p2p/revoke.h"
#include "p2p/tool_counters.h"
#include "progress/progress.h"

namespace ferry::p2p {
namespace engine {
State* state = nullptr;
}  // namespace engine

using namespace engine;

namespace {

// A rendezvous request's registration key is held like a small eager payload.
static_assert(kInlineUnexpectedBytes >= transport::kMaxKeyBytes);

Request* request_of(SendItem* item) {
  return reinterpret_cast<Request*>(reinterpret_cast<char*>(item) - offsetof(Request, packet));
}

void send_done(SendItem* item) { complete(request_of(item)); }

Err truncation(const PacketHeader& h, size_t message_bytes, size_t capacity) {
  return fail(MPI_ERR_TRUNCATE,
              "message truncated: %zu bytes arrived from rank %d with tag %d, the receive buffer holds %zu",
              message_bytes, h.source, h.tag, capacity);
}

}  // namespace

Err engine::report_received(MPI_Status& status, const PacketHeader& h, size_t message_bytes, size_t capacity) {
  status.MPI_SOURCE = h.source;
  status.MPI_TAG = h.tag;
  set_status_bytes(status, std::min(message_bytes, capacity));
  if (message_bytes > capacity) [[unlikely]] return truncation(h, message_bytes, capacity);
  return {};
}

namespace {

// The receive has its message: report source, tag, size, and truncation.
void finish_receive(Request* r, const PacketHeader& h, size_t message_bytes) {
  if (Err e = report_received(r->status, h, message_bytes, r->bytes)) set_error(r, e);
  complete(r);
}

// The single-copy rendezvous ends here: the data has landed, tell the
// sender. The receive completes only once that packet has left, because
// the packet lives in the receive request.
void direct_receive_done(SendItem* item) {
  finish_receive(request_of(item), item->header, item->header.message_bytes);
}

void send_rendezvous_done(Request* r) {
  SendItem& done = r->packet;
  done.header.type = PacketType::kRendezvousDone;
  done.header.flags = 0;
  done.header.payload_bytes = 0;
  done.header.receiver_cookie = 0;
  done.payload = nullptr;
  done.on_sent = direct_receive_done;
  if (Err e = send_packet(r->world_peer, &done)) complete(r, e);
}

// The request's buffer for a transport's one-sided calls, with what the
// driver said of it when it is GPU memory (the request asked once: no
// layer below asks again).
transport::MemoryRef local_memory(const Request* r) {
  transport::MemoryRef local{r->buffer, r->memory};
  if (r->memory == transport::MemoryKind::kDevice && r->device.memory == device::Memory::kDevice) {
    local.device = r->device.device;
    local.described = &r->device;
  }
  return local;
}

Request* request_of(transport::OneSided* op) {
  return reinterpret_cast<Request*>(reinterpret_cast<char*>(op) - offsetof(Request, one_sided));
}

// A read that finished later (a NIC's): the sender is told either way, so
// that its send completes; a failed read fails the receive.
void one_sided_read_done(transport::OneSided* op, const char* error) {
  Request* r = request_of(op);
  if (error != nullptr)
    set_error(r, fail(MPI_ERR_OTHER, "single-copy receive of %zu bytes from rank %d failed: %s", op->bytes,
                      r->packet.header.source, error));
  send_rendezvous_done(r);
}

// A rendezvous request that offers its data in place (kFlagDirect, with
// the registration key `key` as its payload) and a contiguous receive: read
// the data straight from the sender's buffer, one copy, without the
// ready/data round trip. False if the transport cannot.
bool read_directly(Request* r, int world_peer, const PacketHeader& rts, const void* key) {
  transport::OneSided& op = r->one_sided;
  op.peer = world_peer;
  op.remote.address = rts.sender_address;
  op.remote.kind = (rts.flags & kFlagDeviceMemory) != 0 ? transport::MemoryKind::kDevice : transport::MemoryKind::kHost;
  op.remote.key_bytes = static_cast<uint8_t>(rts.payload_bytes);
  if (rts.payload_bytes > 0) std::memcpy(op.remote.key, key, rts.payload_bytes);
  op.local = local_memory(r);
  op.bytes = static_cast<size_t>(std::min<uint64_t>(rts.message_bytes, r->bytes));
  op.on_done = one_sided_read_done;
  r->packet.header = rts;  // keeps source, tag and message_bytes for finish_receive
  Transport* transport = state->routes[static_cast<size_t>(world_peer)].transport;
  transport::Started started = op.bytes == 0 ? transport::Started::kDone : transport->start_read(&op);
  if (started == transport::Started::kUnsupported) return false;
  if (started == transport::Started::kDone) send_rendezvous_done(r);
  return true;
}

// A receive matched a rendezvous request: ask the sender for the data. The
// ready packet says how much the receive can take, so a truncated message
// sends no bytes that would be thrown away.
void send_ready(Request* r, int world_peer, const PacketHeader& rts, const void* key) {
  r->matched = true;
  r->world_peer = world_peer;
  r->remote_cookie = rts.sender_cookie;
  r->message_bytes = rts.message_bytes;
  r->received = 0;
  if ((rts.flags & kFlagDirect) != 0 && r->datatype->contiguous && read_directly(r, world_peer, rts, key)) return;
  SendItem& ready = r->packet;
  ready.header = rts;
  ready.header.type = PacketType::kRendezvousReady;
  ready.header.flags = 0;
  ready.header.payload_bytes = 0;  // a registration key is not sent back
  ready.header.message_bytes = std::min<uint64_t>(rts.message_bytes, r->bytes);
  if (streamed(r)) {
    // Unpacked chunk by chunk into place: never a message-sized copy.
    expect_chunks(r, ready.header.message_bytes);
    ready.header.flags = kFlagChunked;
  }
  ready.header.receiver_cookie = r->cookie();
  ready.payload = nullptr;
  ready.on_sent = nullptr;
  if (Err e = send_packet(world_peer, &ready)) {
    end_stream(r);
    complete(r, e);
  }
}

}  // namespace

void engine::deliver_unexpected(Request* r, UnexpectedMessage* m) {
  r->matched = true;
  if (m->header.type == PacketType::kRendezvousRequest) {
    send_ready(r, m->world_peer, m->header, m->data);
    state->matching.free_unexpected(m);
    return;
  }
  if (!m->data_complete) {
    m->claimed_by = r;  // on_payload finishes it
    return;
  }
  size_t n = std::min<size_t>(m->header.payload_bytes, r->bytes);
  if (!streamed(r)) {
    if (n > 0) std::memcpy(r->buffer, m->data, n);
  } else if (Err e = unpack_part(r, 0, n, m->data)) {
    set_error(r, e);
  }
  finish_receive(r, m->header, m->header.payload_bytes);
  state->matching.free_unexpected(m);
}

namespace {

// Packets that belong to no request (MPI_Cancel of a send and its answer):
// rare, so each is allocated and freed once it has left.
struct ControlPacket {
  SendItem item;  // first: on_sent gets its address
};
void free_control(SendItem* item) { delete reinterpret_cast<ControlPacket*>(item); }
Err send_control(int world_peer, const PacketHeader& h) {
  auto* c = new ControlPacket{};
  c->item.header = h;
  c->item.header.payload_bytes = 0;
  c->item.on_sent = free_control;
  Err e = send_packet(world_peer, &c->item);
  if (e) delete c;
  return e;
}

}  // namespace

// Its sender is told so that its send ends with MPIX_ERR_REVOKED instead of
// waiting for ever.
void engine::refuse_rendezvous(int peer, const PacketHeader& rts) {
  PacketHeader reply = rts;
  reply.type = PacketType::kCancelReply;
  reply.flags = kFlagCancelled | transport::kFlagRevoked;
  if (Err e = send_control(peer, reply))
    FERRY_DEBUG(kP2p, "cannot tell rank %d of the revocation: %s", peer, e.message().c_str());
}

namespace {

// The receiver has answered a send whose buffer was exposed to it: the
// transport may drop the registration.
void conceal(Request* s) {
  if (s->one_sided.peer < 0) return;
  state->routes[static_cast<size_t>(s->one_sided.peer)].transport->conceal(s->one_sided.remote);
  s->one_sided.peer = -1;
  if (s->memory == transport::MemoryKind::kHost && --state->host_offers == 0) progress::end_peer_copies();
}

// A rendezvous request whose key (if any) has arrived: the oldest posted
// receive that matches takes it, or it waits among the unexpected.
void match_rendezvous(int peer, const PacketHeader& h, const void* key) {
  if (revocation::is_revoked(h.context)) [[unlikely]] return refuse_rendezvous(peer, h);
  if (ReceiveNow* n = take_receive_now(h)) [[unlikely]]
    return hand_back(n, state->matching.make_unexpected(h, peer));
  if (Request* r = state->matching.take_posted(h.context, h.source, h.tag)) {
    send_ready(r, peer, h, key);
    return;
  }
  UnexpectedMessage* m = state->matching.make_unexpected(h, peer);
  m->data_complete = true;
  state->matching.add_unexpected(h.context, m);
}

}  // namespace

Destination Handler::on_header(int peer, const PacketHeader& h) {
  switch (h.type) {
    case PacketType::kEager: {
      if (ReceiveNow* n = take_receive_now(h)) return Destination{n->buffer, n->bytes, tag_receive_now(n)};
      if (Request* r = state->matching.take_posted(h.context, h.source, h.tag)) {
        r->matched = true;
        if (streamed(r)) return eager_destination(r, h.payload_bytes);
        return Destination{r->buffer, r->bytes, r};
      }
      UnexpectedMessage* m = state->matching.make_unexpected(h, peer);
      state->matching.add_unexpected(h.context, m);
      FERRY_DEBUG(kP2p, "unexpected eager message from rank %d tag %d, %llu bytes", h.source, h.tag,
                  static_cast<unsigned long long>(h.payload_bytes));
      return Destination{m->data, h.payload_bytes, tag_unexpected(m)};
    }
    case PacketType::kRendezvousRequest: {
      if (h.payload_bytes > 0) {
        // A registration key follows (kFlagDirect): it is matched once the
        // key has landed, before the next packet from this peer.
        UnexpectedMessage* m = state->matching.make_unexpected(h, peer);
        return Destination{m->data, h.payload_bytes, tag_unexpected(m)};
      }
      match_rendezvous(peer, h, nullptr);
      return {};
    }
    case PacketType::kRendezvousReady: {
      // The receiver is ready: send the data it asked for, from the user's
      // buffer, reusing the send request's packet (its request packet is
      // long gone: the transport finished with it before this reply could
      // exist).
      Request* s = Request::from_cookie(h.sender_cookie);
      conceal(s);  // the receiver could not read it in place
      if (streamed(s) || (h.flags & kFlagChunked) != 0) {
        send_chunks(s, peer, h.message_bytes, h.receiver_cookie);
        return {};
      }
      SendItem& data = s->packet;
      data.header.type = PacketType::kRendezvousData;
      data.header.payload_bytes = h.message_bytes;
      data.header.offset = 0;
      data.header.receiver_cookie = h.receiver_cookie;
      data.payload = s->buffer;
      data.on_sent = send_done;
      if (Err e = send_packet(peer, &data)) complete(s, e);
      return {};
    }
    case PacketType::kRendezvousDone: {
      // The receiver has read the data out of our buffer (kFlagDirect).
      Request* s = Request::from_cookie(h.sender_cookie);
      conceal(s);
      complete(s);
      return {};
    }
    case PacketType::kCancelSend: {
      // Dropped if still unreceived: an eager message with its data, or a
      // rendezvous request whose sender will now never be asked for data.
      PacketHeader reply = h;
      reply.type = PacketType::kCancelReply;
      reply.flags = 0;
      if (UnexpectedMessage* m = state->matching.take_sent_by(h.context, peer, h.sender_cookie)) {
        state->matching.free_unexpected(m);
        reply.flags = kFlagCancelled;
      }
      if (Err e = send_control(peer, reply))
        FERRY_DEBUG(kP2p, "cannot answer rank %d's cancel: %s", peer, e.message().c_str());
      return {};
    }
    case PacketType::kCancelReply: {
      Request* s = Request::from_cookie(h.sender_cookie);
      s->cancel_pending = false;
      if ((h.flags & kFlagCancelled) != 0) {
        conceal(s);
        end_stream(s);
        if ((h.flags & transport::kFlagRevoked) != 0) {
          set_error(s, revoke::refusal());  // dropped by MPIX_Comm_revoke, not by MPI_Cancel
        } else {
          s->cancelled = true;
          set_status_cancelled(s->status, true);
        }
        complete(s);
      } else if (s->finished_while_cancelling) {
        complete(s);
      }  // else: received, and still on its way; it completes as sends do
      // A buffered copy's send: the user's request learns the same answer
      // (it was complete before the cancel, so it is again now).
      if (Request* u = s->cancel_for) {
        s->cancel_for = nullptr;
        u->cancel_pending = false;
        if ((h.flags & kFlagCancelled) != 0) {
          u->cancelled = true;
          set_status_cancelled(u->status, true);
        }
        complete(u);
      }
      return {};
    }
    case PacketType::kRevoke:
      revoke::arrived(h.context, peer);
      return {};
    case PacketType::kRendezvousData: {
      // Data may come in chunks (p2p/pack_stream.h), each at its offset.
      Request* r = Request::from_cookie(h.receiver_cookie);
      if (streamed(r)) return chunk_destination(r, h);
      return Destination{static_cast<char*>(r->buffer) + h.offset, r->bytes - h.offset, r};
    }
  }
  return {};
}

void Handler::on_payload(int peer, const PacketHeader& h, const Destination& d) {
  switch (h.type) {
    case PacketType::kEager:
      if (is_receive_now(d.context)) {
        finish_receive_now(as_receive_now(d.context), h, h.payload_bytes);
      } else if (is_unexpected(d.context)) {
        UnexpectedMessage* m = as_unexpected(d.context);
        m->data_complete = true;
        if (Request* r = m->claimed_by) {
          m->claimed_by = nullptr;
          deliver_unexpected(r, m);
        }
      } else {
        Request* r = static_cast<Request*>(d.context);
        if (streamed(r)) unpack_eager(r, d);
        finish_receive(r, h, h.payload_bytes);
      }
      return;
    case PacketType::kRendezvousRequest: {
      if (h.payload_bytes == 0) return;  // matched at its header
      UnexpectedMessage* m = as_unexpected(d.context);
      PacketHeader rts = m->header;
      if (revocation::is_revoked(rts.context)) [[unlikely]] {
        refuse_rendezvous(peer, rts);
        state->matching.free_unexpected(m);
      } else if (ReceiveNow* n = take_receive_now(rts)) [[unlikely]] {
        hand_back(n, m);
      } else if (Request* r = state->matching.take_posted(rts.context, rts.source, rts.tag)) {
        send_ready(r, peer, rts, m->data);
        state->matching.free_unexpected(m);
      } else {
        m->data_complete = true;
        state->matching.add_unexpected(rts.context, m);
      }
      return;
    }
    case PacketType::kRendezvousData: {
      Request* r = static_cast<Request*>(d.context);
      if (streamed(r)) unpack_chunk(r, h, d);
      r->received += h.payload_bytes;
      if (r->received < std::min<uint64_t>(r->message_bytes, r->bytes)) return;
      end_stream(r);
      finish_receive(r, h, r->message_bytes);
      return;
    }
    default:
      return;
  }
}

void init(int world_rank, int world_size) {
  state = new State{};
  state->world_rank = world_rank;
  state->routes.resize(static_cast<size_t>(world_size));
}

void finalize() {
  delete state;
  state = nullptr;
  drop_spare_chunks();
}

// Peers of other jobs (MPI-3.1 §10) get indices past the world ranks as they
// are adopted; the caller holds the progress lock, so no send reads the
// table while it grows.
void set_route(int world_peer, Route route) {
  if (static_cast<size_t>(world_peer) >= state->routes.size()) state->routes.resize(static_cast<size_t>(world_peer) + 1);
  state->routes[static_cast<size_t>(world_peer)] = route;
}

const char* route_name(int world_peer) {
  if (state == nullptr || world_peer < 0 || static_cast<size_t>(world_peer) >= state->routes.size()) return nullptr;
  Transport* t = state->routes[static_cast<size_t>(world_peer)].transport;
  return t != nullptr ? t->name() : nullptr;
}

Transport* route_transport(int world_peer) {
  if (state == nullptr || world_peer < 0 || static_cast<size_t>(world_peer) >= state->routes.size()) return nullptr;
  return state->routes[static_cast<size_t>(world_peer)].transport;
}

PacketHandler* packet_handler() { return &state->handler; }

Err send_packet(int world_peer, SendItem* item) {
  const Route& route = state->routes[static_cast<size_t>(world_peer)];
  if (const char* error = route.transport->send(world_peer, item))
    return fail(MPI_ERR_OTHER, "cannot send to rank %d: %s", world_peer, error);
  return {};
}

namespace {

// Offers send `r`'s buffer for the receiver to read in place (a single
// copy) when the transport can and the message is large enough; on success
// the offer is in r->one_sided (concealed when the receiver answers).
bool offer_in_place(Request* r, const Route& route, int world_peer) {
  r->one_sided.peer = -1;
  size_t threshold = r->memory == transport::MemoryKind::kDevice ? route.reach.device_one_sided_threshold
                     : r->exchange ? std::min(route.reach.one_sided_threshold, route.reach.exchange_one_sided_threshold)
                                   : route.reach.one_sided_threshold;
  if (!r->datatype->contiguous || r->bytes < threshold) return false;
  // Half of an exchange: the transport may offer a single copy it would not
  // offer a one-way send.
  transport::MemoryRef local = local_memory(r);
  transport::RemoteBuffer* exposed = &r->one_sided.remote;
  if (!(r->exchange ? route.transport->expose_exchanged(world_peer, local, r->bytes, exposed)
                    : route.transport->expose(world_peer, local, r->bytes, exposed)))
    return false;
  r->one_sided.peer = world_peer;
  // Its completion waits for the receiver's copy: poll, not sleep, meanwhile.
  if (r->memory == transport::MemoryKind::kHost) {
    ++state->host_offers;
    progress::expect_peer_copy(r->bytes);
  }
  return true;
}

}  // namespace

Err start_send(Request* r) {
  if (revocation::is_revoked(r->context)) [[unlikely]] return revoke::refusal();
  int world_peer = r->world_peer;
  const Route& route = state->routes[static_cast<size_t>(world_peer)];
  SendItem& p = r->packet;
  p.header.source = r->comm->rank;
  p.header.tag = r->tag;
  p.header.context = r->context;
  p.header.sender_cookie = r->cookie();
  p.header.receiver_cookie = 0;
  p.header.flags = 0;
  bool eager = r->mode != Request::Mode::kSynchronous && r->bytes <= route.reach.eager_limit;
  // Non-contiguous or GPU data is packed for an eager send: a bounded copy.
  if (streamed(r)) eager = eager && r->bytes <= kMaxPackedEager;
  // GPU data the receiver can copy straight out of our memory (CUDA IPC on
  // one host) goes that way even when small: one GPU copy instead of two.
  if (r->memory == transport::MemoryKind::kDevice && r->datatype->contiguous && r->bytes > 0 &&
      r->bytes >= route.reach.device_one_sided_threshold)
    eager = false;
  // A message the receiver could read in place goes that way even below the
  // eager limit, where the transport accepts the offer (else eagerly): on
  // shm from FERRY_SHM_CMA_THRESHOLD, one copy by the receiver against two
  // through the ring, each reading lines the other core just wrote (on the
  // Xeon VM of docs/performance.md a 32 KiB ping-pong 6.5 -> 2.7 us). Half of
  // an exchange (Request::exchange) is offered where a one-way send is not:
  // eagerly, each core would copy its outgoing half into the ring and its
  // incoming half out of it ("MPI_Sendrecv as an exchange"). A buffered
  // send's copy (p2p/bsend.cc) is not: it would hold the attached buffer
  // until received.
  bool direct = false;
  if (!eager || (r->mode != Request::Mode::kBuffered &&
                 r->bytes >= (r->exchange ? std::min(route.reach.one_sided_threshold,
                                                     route.reach.exchange_one_sided_threshold)
                                          : route.reach.one_sided_threshold)))
    direct = offer_in_place(r, route, world_peer);
  if (direct) eager = false;
  if (!eager) {
    counters::rendezvous_sent();
    p.header.type = PacketType::kRendezvousRequest;
    p.header.payload_bytes = 0;
    p.header.message_bytes = r->bytes;
    p.payload = nullptr;
    p.on_sent = nullptr;  // the send completes when its data has gone
    if (direct) {
      // The receiver may read it in place (single copy); it then answers
      // kRendezvousDone, else kRendezvousReady as usual.
      const transport::RemoteBuffer& exposed = r->one_sided.remote;
      p.header.flags = kFlagDirect | (exposed.kind == transport::MemoryKind::kDevice ? kFlagDeviceMemory : 0);
      p.header.sender_address = exposed.address;
      p.header.payload_bytes = exposed.key_bytes;
      p.payload = exposed.key;
    }
  } else {
    p.header.type = PacketType::kEager;
    p.header.payload_bytes = r->bytes;
    p.header.message_bytes = r->bytes;
    p.payload = r->buffer;
    p.on_sent = send_done;
    if (streamed(r))
      if (Err e = pack_eager(r)) {
        end_stream(r);
        return e;
      }
  }
  Err e = send_packet(world_peer, &p);
  if (e) end_stream(r);
  return e;
}

bool send_now(int world_peer, int source, int tag, uint32_t context, const void* data, size_t bytes) {
  const Route& route = state->routes[static_cast<size_t>(world_peer)];
  // A message the receiver could read in place takes start_send's way.
  if (!route.reach.sends_now || bytes > route.reach.eager_limit || bytes >= route.reach.one_sided_threshold ||
      revocation::is_revoked(context))
    return false;
  PacketHeader h{};
  h.type = PacketType::kEager;
  h.source = source;
  h.tag = tag;
  h.context = context;
  h.payload_bytes = bytes;
  h.message_bytes = bytes;
  // sender_cookie 0: no request stands behind it, so no MPI_Cancel can name it.
  return route.transport->send_now(world_peer, h, data);
}

void start_recv(Request* r) {
  if (revocation::is_revoked(r->context)) [[unlikely]] return revoke::refuse(r);
  if (UnexpectedMessage* m = state->matching.find_unexpected(r->context, r->peer, r->tag, true)) {
    deliver_unexpected(r, m);
    return;
  }
  state->matching.post(r->context, r);
}

bool polls_peer(int world_peer) {
  return world_peer >= 0 && static_cast<size_t>(world_peer) < state->routes.size() &&
         state->routes[static_cast<size_t>(world_peer)].reach.polls_peer;
}

int progress_peer(int world_peer) {
  int events = state->routes[static_cast<size_t>(world_peer)].transport->progress_peer(world_peer);
  if (events > 0) progress::note_event();
  return events;
}

bool probe(uint32_t context, int source, int tag, MPI_Status* status) {
  UnexpectedMessage* m = state->matching.find_unexpected(context, source, tag, false);
  if (m == nullptr) return false;
  status->MPI_SOURCE = m->header.source;
  status->MPI_TAG = m->header.tag;
  status->MPI_ERROR = MPI_SUCCESS;
  set_status_bytes(*status, m->header.message_bytes);
  set_status_cancelled(*status, false);
  return true;
}

UnexpectedMessage* take_message(uint32_t context, int source, int tag, MPI_Status* status) {
  if (!probe(context, source, tag, status)) return nullptr;
  return state->matching.find_unexpected(context, source, tag, true);
}

void start_matched_recv(Request* r, UnexpectedMessage* m) { deliver_unexpected(r, m); }

bool cancel_recv(Request* r) {
  if (r->matched || !state->matching.unpost(r->context, r)) return false;
  r->cancelled = true;
  set_status_cancelled(r->status, true);
  complete(r);
  return true;
}

Err cancel_send(Request* r) {
  // A send that has finished here may still sit unreceived at the receiver
  // (eager): its completion is taken back until the answer comes.
  r->finished_while_cancelling = r->complete;
  r->complete = false;
  r->cancel_pending = true;
  PacketHeader h{};
  h.type = PacketType::kCancelSend;
  h.source = r->comm->rank;
  h.tag = r->tag;
  h.context = r->context;
  h.sender_cookie = r->cookie();
  Err e = send_control(r->world_peer, h);
  if (e) {
    r->cancel_pending = false;
    r->complete = r->finished_while_cancelling;
  }
  return e;
}

// MPIX_Comm_revoke (p2p/revoke.h) reaches into the engine through these two.
Err send_revoke(int world_peer, uint32_t context) {
  PacketHeader h{};
  h.type = PacketType::kRevoke;
  h.context = context;
  return send_control(world_peer, h);
}

void fail_posted(uint32_t context) {
  fail_receive_now(context);
  while (Request* r = state->matching.take_any_posted(context)) revoke::refuse(r);
  while (UnexpectedMessage* m = state->matching.find_unexpected(context, MPI_ANY_SOURCE, MPI_ANY_TAG, true)) {
    if (m->header.type == PacketType::kRendezvousRequest) refuse_rendezvous(m->world_peer, m->header);
    state->matching.free_unexpected(m);
  }
}

size_t unexpected_messages() { return state ? state->matching.unexpected_count() : 0; }

}  // namespace ferry::p2p
