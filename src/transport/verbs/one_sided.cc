// One-sided communication's requests on the verbs transport (rma/rdma.h):
// RDMA WRITE and READ between a local buffer and a window a peer exposed,
// and the NIC's 8-byte atomics (fetch-and-add, compare-and-swap) on it. The
// target's CPU takes no part: its NIC answers from registered memory.
//
// - A window is exposed once for all peers (one protection domain: one
//   rkey), through the registration cache, held until the window is freed.
// - A write of up to the QP's inline size is copied into the request (no
//   local registration); a larger one, and every read, registers the local
//   buffer through the cache (a hit when a program reuses its buffers).
// - An atomic's old value lands in one of the registered send buffers and
//   is copied to the caller's 8 bytes when the request completes, so the
//   caller's result variable needs no registration.
// - Each request is signaled: its completion is what a flush waits for.
// - Errors (a bad rkey: kRemoteAccess; a peer gone: kRetryExceeded) come
//   back through on_done with the cause, and do not end the job: the caller
//   raises an MPI error class (OneSided::caller_reports). The queue pair is
//   in the error state after one, as on hardware, so the peer is failed for
//   every later request.
#include <cstring>

#include "transport/verbs/verbs_transport.h"

namespace ferry::transport::verbs {
namespace {

constexpr size_t kMaxOneRequest = size_t{1} << 30;  // below the 2 GiB a request may carry

}  // namespace

bool atomic_op(const OneSided& op) {
  return op.transport_op == static_cast<uint8_t>(Opcode::kFetchAdd) ||
         op.transport_op == static_cast<uint8_t>(Opcode::kCompareSwap);
}

bool VerbsTransport::expose_window(const MemoryRef& local, size_t n, RemoteBuffer* remote) {
  return expose(-1, local, n, remote);
}

bool VerbsTransport::has_atomics(int peer) const {
  // Ours; a target's own is in its window's card (rma/rdma.h), since its
  // registration allows remote atomics only where its NIC has them.
  (void)peer;
  return device_->atomics();
}

Started VerbsTransport::queue_one_sided(OneSided* op, Opcode opcode) {
  if (op->peer < 0 || static_cast<size_t>(op->peer) >= peers_.size()) return Started::kUnsupported;
  Peer& p = peers_[static_cast<size_t>(op->peer)];
  // Connections are made by the first packet (connection.cc): until then
  // the caller's messages carry the operation, and connect the pair.
  if (op->local.kind != MemoryKind::kHost || op->remote.kind != MemoryKind::kHost ||
      op->remote.key_bytes != kKeyBytes || (p.state != Peer::State::kConnected && p.state != Peer::State::kAccepted))
    return Started::kUnsupported;
  if (p.state == Peer::State::kAccepted) p.state = Peer::State::kConnected;
  op->transport_op = static_cast<uint8_t>(opcode);
  p.one_sided.push_back(op);
  push(op->peer, p);
  return Started::kPending;
}

Started VerbsTransport::start_write(OneSided* op) { return queue_one_sided(op, Opcode::kWrite); }

Started VerbsTransport::start_atomic(OneSided* op) {
  if (!device_->atomics() || op->bytes != 8 || (op->remote.address & 7) != 0) return Started::kUnsupported;
  return queue_one_sided(op, op->atomic == AtomicKind::kFetchAdd ? Opcode::kFetchAdd : Opcode::kCompareSwap);
}

bool VerbsTransport::post_one_sided(Peer& p, OneSided* op) {
  int peer = op->peer;
  auto opcode = static_cast<Opcode>(op->transport_op);
  uint32_t rkey = 0;
  std::memcpy(&rkey, op->remote.key, sizeof rkey);
  SendRequest r;
  r.opcode = opcode;
  r.rkey = rkey;
  r.remote_address = op->remote.address;
  r.signaled = true;
  Posted entry;
  entry.one_sided = op;
  if (atomic_op(*op)) {
    entry.send_slot = take_send_slot();  // push() saw one free
    r.local = send_buffers_ + static_cast<size_t>(entry.send_slot) * buffer_bytes_;
    r.bytes = 8;
    r.lkey = send_lkey_;
    r.compare_add = op->atomic == AtomicKind::kFetchAdd ? op->operand : op->compare;
    r.swap = op->operand;
    return post(peer, p, r, entry);
  }
  if (opcode == Opcode::kWrite && op->bytes <= static_cast<size_t>(device_->max_inline())) {
    r.local = op->local.data;
    r.bytes = static_cast<uint32_t>(op->bytes);
    r.inline_data = true;
    return post(peer, p, r, entry);
  }
  std::string error;
  RegistrationCache::Entry* local = cache_->acquire(op->local.data, op->bytes, &error);
  if (local == nullptr) {
    const char* what = opcode == Opcode::kRead ? "cannot register the buffer an RDMA read fills"
                                               : "cannot register the buffer an RDMA write sends";
    bool caller_reports = op->caller_reports;
    if (op->on_done) op->on_done(op, what);  // may free it
    if (caller_reports) return true;  // the request failed alone: the queue goes on
    fail_peer(peer, p, "verbs: RDMA to rank " + std::to_string(peer) + ": " + error);
    return false;
  }
  // In pieces of at most kMaxOneRequest, only the last signaled (RC
  // completes a QP's requests in order).
  for (size_t at = 0; at < op->bytes || at == 0; at += kMaxOneRequest) {
    bool last = at + kMaxOneRequest >= op->bytes;
    r.local = static_cast<uint8_t*>(op->local.data) + at;
    r.bytes = static_cast<uint32_t>(std::min(kMaxOneRequest, op->bytes - at));
    r.lkey = local->region.lkey;
    r.remote_address = op->remote.address + at;
    r.signaled = last;
    Posted piece;
    if (last) {
      piece.one_sided = op;
      piece.local = local;
    }
    if (!post(peer, p, r, piece)) {
      if (!last) cache_->release(local);
      return false;
    }
    if (last) break;
  }
  return true;
}

}  // namespace ferry::transport::verbs
