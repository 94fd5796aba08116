// The thin device layer of the verbs transport: one table of calls, like
// NCCL's net plug-in (ncclNet_t) or UCX's uct iface ops.
//
// Everything above this table (connections, eager credits, rendezvous,
// registration cache, error mapping: verbs_transport.cc and its helpers) is
// protocol, and is the same whichever table it runs on. The table is
// implemented twice: by libibverbs, loaded at run time (ibverbs_device.cc),
// and by an in-process model of RC queue pairs (model_device.cc) that the
// unit tests and the overhead benchmark run the protocol against, since the
// machines that build Ferry have no RDMA device.
//
// One Device is one opened port with its resources: a protection domain, one
// completion queue (with a completion channel, whose fd a waiting rank sleeps
// on), one shared receive queue for every RC queue pair, and one UD queue
// pair whose number travels in the rank's contact card and carries the
// connection handshake (verbs/connection.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ferry::transport::verbs {

enum class LinkLayer : uint8_t { kInfiniBand, kEthernet };

struct PortInfo {
  bool active = false;
  LinkLayer link = LinkLayer::kInfiniBand;
  uint16_t lid = 0;
  uint32_t mtu_bytes = 0;  // the active MTU
  int gid_count = 0;
};

struct Gid {
  uint8_t raw[16] = {};
};

// What a GID table entry is (sysfs gid_attrs/types, ibv_query_gid_ex).
enum class GidKind : uint8_t { kInfiniBand, kRoceV1, kRoceV2, kUnknown };

// How to reach a peer's port: by LID on InfiniBand, by GID (a routed
// global header) on RoCE.
struct Address {
  uint16_t lid = 0;
  bool global = false;  // use the GID (RoCE always; IB across subnets)
  Gid gid;
  uint8_t gid_index = 0;  // ours, the source GID
  uint8_t service_level = 0;
  uint8_t traffic_class = 0;
};

// kFetchAdd and kCompareSwap: the NIC's 8-byte atomics (IBV_WR_ATOMIC_*) on
// naturally aligned remote memory; the old value lands in the local buffer.
enum class Opcode : uint8_t { kSend, kRead, kWrite, kRecv, kFetchAdd, kCompareSwap };

// Completion statuses the protocol tells apart (ibv_wc_status, reduced).
enum class Status : uint8_t {
  kSuccess,
  kFlushed,           // the QP was in error state: the request never ran
  kRnrRetryExceeded,  // the receiver had no buffer posted, retries ran out
  kRemoteAccess,      // the remote key or address was refused
  kRetryExceeded,     // no answer from the peer: dead, or the link is down
  kLocalProtection,   // our own lkey did not cover the buffer
  kOther,
};

// Work request ids: the protocol's use bits 0-61 and 63; bit 62 is the
// device implementation's own (its handshake datagrams).
constexpr uint64_t kDeviceWrIdBit = 1ull << 62;

// On an error completion only wr_id, status and qp_num are defined (as
// ibv_wc says): the protocol tells receives from sends by wr_id.
struct Completion {
  uint64_t wr_id = 0;
  Status status = Status::kSuccess;
  Opcode opcode = Opcode::kSend;
  uint32_t bytes = 0;   // received bytes (kRecv)
  uint32_t qp_num = 0;  // our queue pair it completed on
};

struct Region {
  void* handle = nullptr;
  uint32_t lkey = 0;
  uint32_t rkey = 0;
};

struct SendRequest {
  Opcode opcode = Opcode::kSend;
  uint64_t wr_id = 0;
  const void* local = nullptr;
  uint32_t bytes = 0;
  uint32_t lkey = 0;
  bool inline_data = false;  // IBV_SEND_INLINE: copied into the request, no lkey needed
  bool signaled = false;     // IBV_SEND_SIGNALED: a completion follows
  uint64_t remote_address = 0;  // kRead, kWrite, the atomics
  uint32_t rkey = 0;
  uint64_t compare_add = 0;  // kFetchAdd: the addend; kCompareSwap: the expected value
  uint64_t swap = 0;         // kCompareSwap: the new value
};

// What moving a QP from INIT through RTR to RTS needs.
struct QpTarget {
  Address remote;
  uint32_t remote_qpn = 0;
  uint32_t remote_psn = 0;
  uint32_t local_psn = 0;
  uint32_t mtu_bytes = 0;
  uint8_t retry_count = 7;  // transport retries before kRetryExceeded
  uint8_t rnr_retry = 7;    // 7: retry forever (credits make RNR impossible anyway)
};

// Sizes of the shared resources, chosen by the transport.
struct Resources {
  int cq_entries = 4096;
  int srq_entries = 1024;
  int send_queue_entries = 256;  // per RC queue pair
  int max_inline = 128;          // asked for; the device may grant less
};

constexpr size_t kMaxDatagram = 64;  // the connection handshake

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;
  virtual bool query_port(int port, PortInfo* info, std::string* error) = 0;
  virtual bool query_gid(int port, int index, Gid* gid, GidKind* kind) = 0;
  // Creates the PD, CQ with its channel, SRQ and UD QP on `port`.
  virtual bool setup(int port, const Resources& sizes, std::string* error) = 0;
  virtual int max_inline() const = 0;
  // Whether the port's NIC executes kFetchAdd and kCompareSwap (after setup;
  // ibv_device_attr.atomic_cap other than IBV_ATOMIC_NONE).
  virtual bool atomics() const = 0;

  // Registered for local write and remote read, write and atomics.
  virtual bool register_memory(void* address, size_t bytes, Region* region, std::string* error) = 0;
  virtual void deregister_memory(const Region& region) = 0;

  // An RC queue pair on the shared CQ and SRQ, in INIT; -1 on failure.
  virtual int create_qp(uint32_t* qp_num, std::string* error) = 0;
  virtual bool connect_qp(int qp, const QpTarget& target, std::string* error) = 0;
  virtual void destroy_qp(int qp) = 0;
  virtual bool post_send(int qp, const SendRequest& request, std::string* error) = 0;
  virtual bool post_receive(uint64_t wr_id, void* buffer, uint32_t bytes, uint32_t lkey) = 0;

  // The UD queue pair of the connection handshake: best effort, small.
  virtual uint32_t datagram_qpn() const = 0;
  virtual bool send_datagram(const Address& to, uint32_t qpn, const void* data, size_t bytes, std::string* error) = 0;
  // One datagram that arrived (seen by poll()), or 0.
  virtual size_t take_datagram(void* data, size_t capacity) = 0;

  // RC completions (datagrams are kept for take_datagram).
  virtual int poll(Completion* out, int max) = 0;
  // The completion channel: readable once a completion arrives after arm().
  virtual int completion_fd() const = 0;
  virtual bool arm() = 0;
  virtual void acknowledge_events() = 0;
};

// libibverbs, dlopen'd: nullptr with a message when it is not there, has no
// device, or the named device (FERRY_IB_DEVICE's name part) is absent. `name`
// empty: the first device with an active port (see port_select.h).
struct Opened {
  std::unique_ptr<Device> device;
  int port = 0;
};
Opened open_ibverbs(const std::string& device_name, int port, std::string* error);

}  // namespace ferry::transport::verbs
