#include "transport/verbs/model_device.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace ferry::transport::verbs {

std::unique_ptr<ModelDevice> ModelFabric::add_device(LinkLayer link) {
  auto d = std::make_unique<ModelDevice>(this, next_lid_++, link);
  devices_.push_back(d.get());
  return d;
}

ModelDevice* ModelFabric::device_at(const Address& address) {
  uint16_t lid = address.global ? static_cast<uint16_t>(address.gid.raw[14] << 8 | address.gid.raw[15]) : address.lid;
  if (lid == 0) return nullptr;
  for (ModelDevice* d : devices_)
    if (d->lid_ == lid) return d;
  return nullptr;
}

void ModelFabric::pump() {
  // A delivery may free what another QP waits for (a receive posted): round
  // until nothing moves.
  for (bool moved = true; moved;) {
    moved = false;
    for (ModelDevice* d : devices_)
      for (auto& q : d->qps_) moved = d->pump_qp(q) || moved;
  }
}

ModelDevice::ModelDevice(ModelFabric* fabric, uint16_t lid, LinkLayer link)
    : fabric_(fabric), lid_(lid), link_(link) {
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

ModelDevice::~ModelDevice() {
  auto& list = fabric_->devices_;
  list.erase(std::remove(list.begin(), list.end(), this), list.end());
  close(event_fd_);
}

bool ModelDevice::query_port(int port, PortInfo* info, std::string* error) {
  if (port != 1) {
    *error = name() + ": no port " + std::to_string(port);
    return false;
  }
  info->active = port_active_;
  info->link = link_;
  info->lid = link_ == LinkLayer::kInfiniBand ? lid_ : 0;
  info->mtu_bytes = 4096;
  info->gid_count = 4;
  return true;
}

// The GID table of a RoCE port as a Linux host shows it: for each address,
// a RoCE v1 entry then a v2 one (index 0/1: link-local, 2/3: an IPv4
// address). An InfiniBand port has one kind only.
bool ModelDevice::query_gid(int port, int index, Gid* gid, GidKind* kind) {
  if (port != 1 || index < 0 || index >= 4) return false;
  *gid = Gid{};
  gid->raw[15] = static_cast<uint8_t>(lid_);
  gid->raw[14] = static_cast<uint8_t>(lid_ >> 8);
  if (index < 2) {
    gid->raw[0] = 0xfe, gid->raw[1] = 0x80;  // link-local
  } else {
    gid->raw[10] = gid->raw[11] = 0xff;      // ::ffff:10.0.x.y, IPv4-mapped
    gid->raw[12] = 10;
  }
  if (link_ == LinkLayer::kInfiniBand) *kind = GidKind::kInfiniBand;
  else *kind = index % 2 == 0 ? GidKind::kRoceV1 : GidKind::kRoceV2;
  return true;
}

bool ModelDevice::setup(int port, const Resources& sizes, std::string* error) {
  PortInfo info;
  if (!query_port(port, &info, error)) return false;
  max_inline_ = sizes.max_inline;
  cq_capacity_ = sizes.cq_entries;
  datagram_qpn_ = fabric_->next_qpn_++;
  return true;
}

bool ModelDevice::register_memory(void* address, size_t bytes, Region* region, std::string* error) {
  (void)error;
  void* handle = reinterpret_cast<void*>(static_cast<uintptr_t>(next_key_));
  Registered r{reinterpret_cast<uintptr_t>(address), bytes, next_key_, next_key_ + 0x10000};
  ++next_key_;
  regions_[handle] = r;
  ++registrations_;
  *region = Region{handle, r.lkey, r.rkey};
  return true;
}

void ModelDevice::deregister_memory(const Region& region) { regions_.erase(region.handle); }

const ModelDevice::Registered* ModelDevice::find_region(uint32_t key, bool remote, const void* address,
                                                        size_t bytes) const {
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  for (const auto& [handle, r] : regions_)
    if ((remote ? r.rkey : r.lkey) == key && a >= r.start && a + bytes <= r.start + r.bytes) return &r;
  return nullptr;
}

int ModelDevice::create_qp(uint32_t* qp_num, std::string* error) {
  (void)error;
  Qp& q = qps_.emplace_back();
  q.state = QpState::kInit;
  q.qpn = fabric_->next_qpn_++;
  *qp_num = q.qpn;
  return static_cast<int>(qps_.size()) - 1;
}

bool ModelDevice::connect_qp(int qp, const QpTarget& target, std::string* error) {
  Qp& q = qps_[static_cast<size_t>(qp)];
  if (q.state != QpState::kInit) {
    *error = name() + ": modify_qp(RTR) of a QP not in INIT";
    return false;
  }
  q.target = target;
  q.state = QpState::kRts;
  return true;
}

void ModelDevice::destroy_qp(int qp) {
  Qp& q = qps_[static_cast<size_t>(qp)];
  q.queue.clear();
  q.state = QpState::kDestroyed;
}

ModelDevice::Qp* ModelDevice::find_qp(uint32_t qpn) {
  for (Qp& q : qps_)
    if (q.qpn == qpn) return &q;
  return nullptr;
}

void ModelDevice::break_qp(int qp) { fail_qp(qps_[static_cast<size_t>(qp)], Status::kFlushed); }

void ModelDevice::complete(const Completion& c) {
  if (static_cast<int>(cq_.size()) >= cq_capacity_) {
    cq_overrun_ = true;  // on hardware: a fatal asynchronous event
    return;
  }
  cq_.push_back(c);
  if (armed_) {
    armed_ = false;
    uint64_t one = 1;
    (void)!write(event_fd_, &one, sizeof one);
  }
}

// The first failed request reports `first`; every later one is flushed.
void ModelDevice::fail_qp(Qp& q, Status first) {
  q.state = QpState::kError;
  bool reported = false;
  while (!q.queue.empty()) {
    const SendRequest& r = q.queue.front().request;
    Status s = reported ? Status::kFlushed : first;
    reported = true;
    // As on hardware, an error completion's opcode means nothing.
    complete(Completion{r.wr_id, s, Opcode::kRecv, 0, q.qpn});
    q.queue.pop_front();
  }
}

bool ModelDevice::pump_qp(Qp& q) {
  bool moved = false;
  while (!q.queue.empty() && q.state == QpState::kRts) {
    SendRequest& r = q.queue.front().request;
    const void* source = r.inline_data ? q.queue.front().inline_copy.data() : r.local;
    ModelDevice* peer = fabric_->device_at(q.target.remote);
    Qp* remote = peer ? peer->find_qp(q.target.remote_qpn) : nullptr;
    if (!port_active_ || peer == nullptr || peer->dead_ || !peer->port_active_ || remote == nullptr ||
        remote->state == QpState::kDestroyed) {
      fail_qp(q, Status::kRetryExceeded);
      return true;
    }
    if (remote->state == QpState::kError) {
      fail_qp(q, Status::kRetryExceeded);  // the responder no longer answers
      return true;
    }
    if (remote->state != QpState::kRts) {
      // Not yet in RTR: the packet is dropped, the requester times out and
      // retries, `retry_count` times.
      ++unready_tries_;
      if (++q.unready_tries > q.target.retry_count) {
        fail_qp(q, Status::kRetryExceeded);
        return true;
      }
      return moved;
    }
    if (r.opcode == Opcode::kSend) {
      if (peer->srq_.empty()) {
        // An RNR NAK: the requester retries after the timer, `rnr_retry`
        // times (7: without limit).
        ++rnr_naks_;
        if (q.target.rnr_retry != 7 && ++q.rnr_tries > q.target.rnr_retry) {
          fail_qp(q, Status::kRnrRetryExceeded);
          return true;
        }
        return moved;
      }
      q.rnr_tries = 0;
      Receive rx = peer->srq_.front();
      if (r.bytes > rx.bytes) {
        fail_qp(q, Status::kOther);  // the responder's length error
        return true;
      }
      peer->srq_.pop_front();
      std::memcpy(rx.buffer, source, r.bytes);
      peer->complete(Completion{rx.wr_id, Status::kSuccess, Opcode::kRecv, r.bytes, remote->qpn});
    } else if (r.opcode == Opcode::kFetchAdd || r.opcode == Opcode::kCompareSwap) {
      // The responder checks the rkey and range, and that the 8 bytes are
      // naturally aligned (hardware answers a misaligned atomic with an
      // invalid request NAK); a device without atomics refuses them all.
      const Registered* there = peer->find_region(r.rkey, true, reinterpret_cast<void*>(r.remote_address), 8);
      if (there == nullptr || (r.remote_address & 7) != 0 || !peer->atomics_ || r.bytes != 8) {
        fail_qp(q, there == nullptr ? Status::kRemoteAccess : Status::kOther);
        peer->fail_qp(*remote, Status::kFlushed);
        return true;
      }
      if (find_region(r.lkey, false, r.local, 8) == nullptr) {
        fail_qp(q, Status::kLocalProtection);
        return true;
      }
      auto* word = reinterpret_cast<uint64_t*>(r.remote_address);
      uint64_t old = __atomic_load_n(word, __ATOMIC_ACQUIRE);
      if (r.opcode == Opcode::kFetchAdd) __atomic_store_n(word, old + r.compare_add, __ATOMIC_RELEASE);
      else if (old == r.compare_add) __atomic_store_n(word, r.swap, __ATOMIC_RELEASE);
      std::memcpy(const_cast<void*>(r.local), &old, sizeof old);
      ++atomic_ops_;
    } else if (r.bytes > 0) {
      const Registered* there = peer->find_region(r.rkey, true, reinterpret_cast<void*>(r.remote_address), r.bytes);
      if (there == nullptr) {
        fail_qp(q, Status::kRemoteAccess);
        peer->fail_qp(*remote, Status::kFlushed);
        return true;
      }
      // Inline data was copied at post time: its lkey is never looked at.
      if (!r.inline_data && find_region(r.lkey, false, r.local, r.bytes) == nullptr) {
        fail_qp(q, Status::kLocalProtection);
        return true;
      }
      void* remote_bytes = reinterpret_cast<void*>(r.remote_address);
      if (r.opcode == Opcode::kRead) {
        std::memcpy(const_cast<void*>(r.local), remote_bytes, r.bytes);
        ++rdma_reads_;
      } else {
        std::memcpy(remote_bytes, source, r.bytes);
        ++rdma_writes_;
      }
    }
    if (r.signaled) complete(Completion{r.wr_id, Status::kSuccess, r.opcode, r.bytes, q.qpn});
    q.queue.pop_front();
    moved = true;
  }
  return moved;
}

bool ModelDevice::post_send(int qp, const SendRequest& request, std::string* error) {
  Qp& q = qps_[static_cast<size_t>(qp)];
  if (q.state == QpState::kReset || q.state == QpState::kInit || q.state == QpState::kDestroyed) {
    *error = "post_send on a QP that is not ready to send";
    return false;
  }
  if (request.inline_data && static_cast<int>(request.bytes) > max_inline_) {
    *error = "post_send: inline data beyond the QP's max_inline_data";
    return false;
  }
  if (q.state == QpState::kError) {
    complete(Completion{request.wr_id, Status::kFlushed, Opcode::kRecv, 0, q.qpn});
    return true;
  }
  Queued& queued = q.queue.emplace_back();
  queued.request = request;
  // Inline data is copied into the request: the buffer is free at once.
  if (request.inline_data) queued.inline_copy.assign(static_cast<const char*>(request.local), request.bytes);
  fabric_->pump();
  return true;
}

bool ModelDevice::post_receive(uint64_t wr_id, void* buffer, uint32_t bytes, uint32_t lkey) {
  if (static_cast<int>(srq_.size()) >= srq_limit_) return false;
  if (find_region(lkey, false, buffer, bytes) == nullptr) return false;
  srq_.push_back(Receive{wr_id, buffer, bytes});
  return true;
}

bool ModelDevice::send_datagram(const Address& to, uint32_t qpn, const void* data, size_t bytes, std::string* error) {
  (void)error;
  if (fabric_->drop_datagrams > 0) {
    --fabric_->drop_datagrams;
    return true;
  }
  ModelDevice* peer = fabric_->device_at(to);
  if (peer == nullptr || peer->dead_ || peer->datagram_qpn_ != qpn || !port_active_) return true;  // lost, as UD may be
  peer->datagrams_.emplace_back(static_cast<const char*>(data), bytes);
  if (peer->armed_) {
    peer->armed_ = false;
    uint64_t one = 1;
    (void)!write(peer->event_fd_, &one, sizeof one);
  }
  return true;
}

size_t ModelDevice::take_datagram(void* data, size_t capacity) {
  if (datagrams_.empty()) return 0;
  size_t n = std::min(capacity, datagrams_.front().size());
  std::memcpy(data, datagrams_.front().data(), n);
  datagrams_.pop_front();
  return n;
}

int ModelDevice::poll(Completion* out, int max) {
  fabric_->pump();
  int n = 0;
  while (n < max && !cq_.empty()) {
    out[n++] = cq_.front();
    cq_.pop_front();
  }
  return n;
}

bool ModelDevice::arm() {
  armed_ = true;
  return true;
}

void ModelDevice::acknowledge_events() {
  uint64_t count = 0;
  (void)!read(event_fd_, &count, sizeof count);
}

}  // namespace ferry::transport::verbs
