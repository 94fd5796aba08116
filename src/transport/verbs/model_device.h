// An in-process model of RC queue pairs behind the device table
// (verbs/device.h), for the unit tests and the overhead benchmark: the
// protocol above the table runs on it unchanged, without an RDMA device.
//
// What it keeps of the real thing: per-QP ordered delivery; sends consume a
// buffer from the receiver's shared receive queue, or are retried as an RNR
// NAK would be and fail with kRnrRetryExceeded after `rnr_retry` tries (7:
// forever, as on hardware); RDMA READ and WRITE check the rkey and range
// against the target's registrations and fail with kRemoteAccess, putting
// both QPs in the error state; the 8-byte atomics (fetch-and-add,
// compare-and-swap) check the same and natural alignment, on a device that
// has them (set_atomics); a QP in error flushes every later request
// (kFlushed, signaled or not); a peer that died or a port that went down
// fails sends with kRetryExceeded, and so does a remote QP that stays short
// of RTR (hardware drops such packets and retries); QPs must go INIT -> RTR/RTS before
// sends; completions fire the completion channel (an eventfd) once armed;
// the CQ has a capacity and records an overrun. Delivery happens when a
// device of the fabric is polled or posts, in one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "transport/verbs/device.h"

namespace ferry::transport::verbs {

class ModelDevice;

// The switch between model devices: LIDs and QP numbers.
class ModelFabric {
 public:
  std::unique_ptr<ModelDevice> add_device(LinkLayer link = LinkLayer::kInfiniBand);
  // Moves every queued request that can move now.
  void pump();
  // Datagrams to drop from now on (the handshake must retry).
  int drop_datagrams = 0;

 private:
  friend class ModelDevice;
  // On RoCE the GID routes (the port has no LID): the model's GIDs end in
  // the device's number.
  ModelDevice* device_at(const Address& address);
  std::vector<ModelDevice*> devices_;
  uint16_t next_lid_ = 1;
  uint32_t next_qpn_ = 0x100;
};

class ModelDevice final : public Device {
 public:
  ModelDevice(ModelFabric* fabric, uint16_t lid, LinkLayer link);
  ~ModelDevice() override;

  // Test controls.
  void kill() { dead_ = true; }                        // the process died: nothing answers
  void set_port_active(bool active) { port_active_ = active; }
  void set_srq_limit(int n) { srq_limit_ = n; }       // receive buffers the SRQ holds at most
  bool cq_overrun() const { return cq_overrun_; }
  int rnr_naks() const { return rnr_naks_; }          // sends that found no receive buffer, retries included
  int unready_tries() const { return unready_tries_; } // requests that met a remote QP not yet in RTR
  int registrations() const { return registrations_; }
  // RDMA requests this device's QPs completed as the requester.
  uint64_t rdma_writes() const { return rdma_writes_; }
  uint64_t rdma_reads() const { return rdma_reads_; }
  uint64_t atomic_ops() const { return atomic_ops_; }
  void set_atomics(bool on) { atomics_ = on; }  // a NIC without atomics (atomic_cap NONE)
  int live_regions() const { return static_cast<int>(regions_.size()); }
  int posted_receives() const { return static_cast<int>(srq_.size()); }
  bool qp_in_error(int qp) const { return qps_[static_cast<size_t>(qp)].state == QpState::kError; }
  uint16_t lid() const { return lid_; }
  // Takes `n` posted receives away (a receiver that ran out of buffers).
  void steal_receives(int n) {
    while (n-- > 0 && !srq_.empty()) srq_.pop_back();
  }
  // Puts a QP in the error state (as a local or remote error would).
  void break_qp(int qp);

  std::string name() const override { return "model" + std::to_string(lid_); }
  bool query_port(int port, PortInfo* info, std::string* error) override;
  bool query_gid(int port, int index, Gid* gid, GidKind* kind) override;
  bool setup(int port, const Resources& sizes, std::string* error) override;
  int max_inline() const override { return max_inline_; }
  bool atomics() const override { return atomics_; }
  bool register_memory(void* address, size_t bytes, Region* region, std::string* error) override;
  void deregister_memory(const Region& region) override;
  int create_qp(uint32_t* qp_num, std::string* error) override;
  bool connect_qp(int qp, const QpTarget& target, std::string* error) override;
  void destroy_qp(int qp) override;
  bool post_send(int qp, const SendRequest& request, std::string* error) override;
  bool post_receive(uint64_t wr_id, void* buffer, uint32_t bytes, uint32_t lkey) override;
  uint32_t datagram_qpn() const override { return datagram_qpn_; }
  bool send_datagram(const Address& to, uint32_t qpn, const void* data, size_t bytes, std::string* error) override;
  size_t take_datagram(void* data, size_t capacity) override;
  int poll(Completion* out, int max) override;
  int completion_fd() const override { return event_fd_; }
  bool arm() override;
  void acknowledge_events() override;

 private:
  friend class ModelFabric;
  enum class QpState : uint8_t { kReset, kInit, kRts, kError, kDestroyed };
  struct Queued {
    SendRequest request;
    std::string inline_copy;  // IBV_SEND_INLINE: the bytes, copied at post time
  };
  struct Qp {
    QpState state = QpState::kReset;
    uint32_t qpn = 0;
    QpTarget target;
    std::deque<Queued> queue;  // posted, not yet delivered
    int rnr_tries = 0;
    int unready_tries = 0;
  };
  struct Receive {
    uint64_t wr_id;
    void* buffer;
    uint32_t bytes;
  };
  struct Registered {
    uintptr_t start;
    size_t bytes;
    uint32_t lkey, rkey;
  };

  // Delivers what QP `q` has queued, in order, until one must wait.
  bool pump_qp(Qp& q);
  void fail_qp(Qp& q, Status first);
  void complete(const Completion& c);
  const Registered* find_region(uint32_t key, bool remote, const void* address, size_t bytes) const;
  Qp* find_qp(uint32_t qpn);

  ModelFabric* fabric_;
  uint16_t lid_;
  LinkLayer link_;
  bool dead_ = false;
  bool port_active_ = true;
  bool armed_ = false;
  bool cq_overrun_ = false;
  int event_fd_ = -1;
  int max_inline_ = 0;
  int cq_capacity_ = 0;
  int srq_limit_ = 1 << 30;
  int rnr_naks_ = 0;
  int unready_tries_ = 0;
  int registrations_ = 0;
  bool atomics_ = true;
  uint64_t rdma_writes_ = 0, rdma_reads_ = 0, atomic_ops_ = 0;
  uint32_t next_key_ = 1;
  uint32_t datagram_qpn_ = 0;
  std::vector<Qp> qps_;
  std::deque<Receive> srq_;
  std::deque<Completion> cq_;
  std::deque<std::string> datagrams_;
  std::map<void*, Registered> regions_;  // by handle
};

}  // namespace ferry::transport::verbs
