// The verbs transport (InfiniBand and RoCE): RC queue pairs over the device
// table (verbs/device.h), so the same protocol runs on libibverbs and, in
// the unit tests, on the in-process model.
//
// - Connections (connection.cc): one RC QP per peer, made at the first send
//   to it. The rank's card (PMIx) holds its port's LID/GID and the number of
//   its UD QP; the RC QP numbers and PSNs are exchanged in a two-datagram
//   handshake on those UD QPs (no socket), retried until
//   FERRY_CONNECT_TIMEOUT. Only pairs that talk connect.
// - Eager (eager.cc): packets go as frames of at most one receive buffer
//   into the receiver's shared receive queue; small frames inline; one
//   signaled completion per kSignalEvery frames; credits (verbs/credits.h)
//   so unexpected messages never exhaust the receive buffers.
// - Rendezvous (rendezvous.cc): the receiver reads a contiguous message with
//   RDMA READ straight from the sender's registered buffer (the p2p layer's
//   single-copy rendezvous: Transport::expose and start_read); the rkey
//   travels as the registration key of the rendezvous request. READ rather
//   than WRITE: the receiver posts it when its buffer is matched, so no
//   round trip carries the receiver's key back to the sender, and the sender
//   has nothing to do but release its buffer on the done packet.
// - One-sided communication (one_sided.cc): RDMA WRITE, READ and the NIC's
//   atomics on window memory that the target exposed (rma/rdma.h).
// - Registration (verbs/reg_cache.h) and memory hooks that keep it right.
// - Errors: a failed completion names the peer and the cause and ends the
//   job through JobLayout::fatal; a peer that stops answering fails with the
//   transport's retry count, never a hang.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "transport/providers.h"
#include "transport/verbs/credits.h"
#include "transport/verbs/device.h"
#include "transport/verbs/port_select.h"
#include "transport/verbs/reg_cache.h"

namespace ferry::transport::verbs {

// A registration's key as it travels (RemoteBuffer::key): the rkey alone.
inline constexpr uint8_t kKeyBytes = sizeof(uint32_t);

// Send-queue requests a peer may have outstanding: the QP's send queue
// (Resources::send_queue_entries), less room for a flush.
constexpr size_t kMaxPostedPerPeer = 240;
// The shared receive queue and the completion queue are sized for this
// many connected peers (or the job size, if smaller).
constexpr int kMaxPeersSized = 256;

struct VerbsOptions {
  int my_rank = 0;
  int world_size = 1;
  uint32_t my_job = 0;
  int port = 1;
  size_t eager_limit = 8192;   // FERRY_IB_EAGER_LIMIT
  int credits = 32;            // FERRY_IB_CREDITS: receive buffers per connected peer
  int send_slots = 128;        // registered send buffers, shared by all peers
  size_t reg_cache_bytes = 0;  // FERRY_IB_REG_CACHE (0: off)
  int gid_index = -1;          // FERRY_IB_GID_INDEX (-1: choose)
  uint8_t service_level = 0;   // FERRY_IB_SL
  uint8_t traffic_class = 0;   // FERRY_IB_TC
  int connect_timeout_ms = 30000;
  uint8_t rnr_retry = 7;
  std::function<bool(int rank, std::string* card)> card_of;
  std::function<void(const std::string& message)> fatal;
};

// Whether a queued one-sided request is an atomic (one_sided.cc).
bool atomic_op(const OneSided& op);

class VerbsTransport final : public Transport {
 public:
  VerbsTransport(VerbsOptions options, std::unique_ptr<Device> device, PacketHandler* handler);
  ~VerbsTransport() override;

  // The provider (transport/providers.h), in verbs_provider.cc.
  static std::unique_ptr<Transport> open(const JobLayout& job, PacketHandler* handler, std::string* error);
  bool publish(Exchange& exchange, std::string* error) override;
  bool connect(Exchange& exchange, std::string* error) override;

  // Checks the locked-memory limit, picks the address, creates the device's
  // resources and the send buffers. False with a message.
  bool start(std::string* error);
  const Card& card() const { return local_.card; }

  const char* name() const override { return "verbs"; }
  std::optional<Reach> reach(int peer) const override;
  const char* send(int peer, SendItem* item) override;
  bool has_pending_sends() const override;
  int progress() override;
  int wait_fd() const override { return device_->completion_fd(); }
  bool arm_wakeup() override;
  void disarm_wakeup(bool slept) override;

  bool expose(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote) override;
  void conceal(const RemoteBuffer& remote) override;
  Started start_read(OneSided* op) override;
  // one_sided.cc
  Started start_write(OneSided* op) override;
  bool expose_window(const MemoryRef& local, size_t n, RemoteBuffer* remote) override;
  bool has_atomics(int peer) const override;
  Started start_atomic(OneSided* op) override;

  // For tests and the benchmark.
  RegistrationCache& registrations() { return *cache_; }
  int connected_peers() const;
  size_t buffer_bytes() const { return buffer_bytes_; }
  uint64_t signaled_sends() const { return signaled_; }
  uint64_t frames_sent() const { return frames_; }

 private:
  // A frame in a receive buffer: this, then (kStart) the packet header and
  // the first part of the payload, or (kMore) the next part of it.
  enum class FrameKind : uint8_t { kStart = 1, kMore = 2, kCredits = 3 };
  struct Frame {
    FrameKind kind;
    uint8_t reserve_returned;  // Credits: the peer's reserve buffer is free again
    uint16_t credits;          // credits returned
    uint32_t unused;
  };
  // A request on a peer's send queue, until a signaled completion at or
  // after it retires it (RC completes a QP's requests in order).
  struct Posted {
    uint64_t seq = 0;
    int send_slot = -1;                          // send buffer to free
    OneSided* one_sided = nullptr;               // the one-sided request this finishes
    RegistrationCache::Entry* local = nullptr;   // its local registration
    bool signaled = false;
  };
  struct Peer {
    enum class State : uint8_t {
      kIdle,       // no QP
      kRequested,  // our QP in INIT, request sent, waiting for the accept
      kAccepted,   // QP in RTS after the peer's request; we send once the
                   // peer shows it is in RTR too (its first frame or accept)
      kConnected,
      kFailed,
    };
    State state = State::kIdle;
    bool reachable = false;
    int qp = -1;
    uint32_t qpn = 0, psn = 0;
    uint32_t remote_qpn = 0;
    Card remote;
    bool have_card = false;
    Credits credits;
    // Packets waiting for credits or send buffers; `head_sent`: payload
    // bytes of the head already framed (kStart counts the header).
    SendItem* head = nullptr;
    SendItem* tail = nullptr;
    uint64_t head_sent = 0;
    bool head_started = false;
    std::deque<OneSided*> one_sided;  // reads, writes, atomics waiting for send-queue room
    // Posted requests, and how many since the last signaled one.
    std::deque<Posted> posted;
    uint64_t next_seq = 1;
    int unsignaled = 0;
    bool flush_posted = false;
    // The packet arriving from this peer.
    bool receiving = false;
    PacketHeader incoming{};
    Destination destination;
    uint64_t received = 0;
    long long next_try_us = 0, deadline_us = 0;
    int tries = 0;
  };

  // connection.cc
  bool start_connect(int peer, Peer& p);
  void on_datagram(const void* data, size_t bytes);
  bool establish(int peer, Peer& p, uint32_t remote_qpn, uint32_t remote_psn, std::string* error);
  void send_hello(int peer, Peer& p, uint8_t type);
  void check_connect_timeouts();
  bool address_of(int peer, Peer& p, std::string* error);

  // eager.cc
  void push(int peer, Peer& p);
  bool post_frame(int peer, Peer& p, FrameKind kind, const void* part, size_t part_bytes, const PacketHeader* header);
  void on_receive(const Completion& c);
  void deliver(int peer, Peer& p, const uint8_t* frame, size_t bytes);
  int take_send_slot();
  void flush_unsignaled(int peer, Peer& p);
  bool post_receive_buffers(int count, std::string* error);

  // one_sided.cc
  Started queue_one_sided(OneSided* op, Opcode opcode);
  // False when the peer failed (fail_peer was called).
  bool post_one_sided(Peer& p, OneSided* op);

  // verbs_transport.cc
  void on_completion(const Completion& c);
  void retire(int peer, Peer& p, uint64_t seq, const char* error);
  // `fatal`: the job ends (options_.fatal); false for a failure that a
  // one-sided request's owner reports itself (OneSided::caller_reports).
  void fail_peer(int peer, Peer& p, const std::string& message, bool fatal = true);
  bool post(int peer, Peer& p, SendRequest request, const Posted& posted);

  VerbsOptions options_;
  std::unique_ptr<Device> device_;
  PacketHandler* handler_;
  LocalPort local_;
  size_t buffer_bytes_ = 0;  // one receive buffer: a frame header, a packet header, eager_limit bytes
  std::vector<Peer> peers_;
  std::unordered_map<uint32_t, int> peer_of_qpn_;
  std::unique_ptr<RegistrationCache> cache_;
  // Exposed send buffers by rkey: the entry and how many exposures hold it.
  std::unordered_map<uint32_t, std::pair<RegistrationCache::Entry*, int>> exposed_;
  // Receive buffers (SRQ), by slot; registered in blocks.
  std::vector<uint8_t*> receive_slots_;
  std::vector<uint32_t> receive_lkeys_;  // by receive block (credits + 1 slots each)
  std::vector<std::pair<std::unique_ptr<uint8_t[]>, Region>> blocks_;
  // Send buffers for frames too large to inline.
  uint8_t* send_buffers_ = nullptr;
  uint32_t send_lkey_ = 0;
  std::vector<int> free_send_slots_;
  std::vector<Completion> stash_;           // polled by arm_wakeup, handled by the next progress()
  std::vector<std::string> datagram_stash_;
  uint64_t queued_items_ = 0;
  uint64_t outstanding_ = 0;  // posted send-queue requests not yet retired
  mutable bool draining_ = false;
  int connecting_ = 0;
  uint64_t signaled_ = 0, frames_ = 0;
};

}  // namespace ferry::transport::verbs
