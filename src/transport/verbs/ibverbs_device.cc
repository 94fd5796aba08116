// The device table (verbs/device.h) on libibverbs, loaded at run time with
// dlopen("libibverbs.so.1"): one build of libmpi runs with or without RDMA
// hardware, and a machine without rdma-core never loads it.
//
// Only the exported ibv_* functions are resolved with dlsym. The data-path
// calls (ibv_post_send, ibv_post_srq_recv, ibv_poll_cq, ibv_req_notify_cq)
// are static inline in verbs.h and call through context->ops, the table of
// the provider driver (libmlx5, librxe, ...) that the loaded library set up,
// so they need no symbol. The macros that would name a symbol in their
// fallback path (ibv_query_port, ibv_reg_mr) are avoided: their exported
// functions are called through pointers instead.
#include <dlfcn.h>
#include <fcntl.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <vector>

#include "transport/verbs/device.h"

namespace ferry::transport::verbs {
namespace {

struct Library {
  void* handle = nullptr;
  ibv_device** (*get_device_list)(int*);
  void (*free_device_list)(ibv_device**);
  const char* (*get_device_name)(ibv_device*);
  ibv_context* (*open_device)(ibv_device*);
  int (*close_device)(ibv_context*);
  int (*query_device)(ibv_context*, ibv_device_attr*);
  int (*query_port)(ibv_context*, uint8_t, ibv_port_attr*);
  int (*query_gid)(ibv_context*, uint8_t, int, ibv_gid*);
  int (*query_gid_ex)(ibv_context*, uint32_t, uint32_t, ibv_gid_entry*, uint32_t, size_t);  // optional (1.11)
  ibv_pd* (*alloc_pd)(ibv_context*);
  int (*dealloc_pd)(ibv_pd*);
  ibv_mr* (*reg_mr)(ibv_pd*, void*, size_t, int);
  int (*dereg_mr)(ibv_mr*);
  ibv_comp_channel* (*create_comp_channel)(ibv_context*);
  int (*destroy_comp_channel)(ibv_comp_channel*);
  ibv_cq* (*create_cq)(ibv_context*, int, void*, ibv_comp_channel*, int);
  int (*destroy_cq)(ibv_cq*);
  int (*get_cq_event)(ibv_comp_channel*, ibv_cq**, void**);
  void (*ack_cq_events)(ibv_cq*, unsigned);
  ibv_srq* (*create_srq)(ibv_pd*, ibv_srq_init_attr*);
  int (*destroy_srq)(ibv_srq*);
  ibv_qp* (*create_qp)(ibv_pd*, ibv_qp_init_attr*);
  int (*modify_qp)(ibv_qp*, ibv_qp_attr*, int);
  int (*destroy_qp)(ibv_qp*);
  ibv_ah* (*create_ah)(ibv_pd*, ibv_ah_attr*);
  int (*destroy_ah)(ibv_ah*);
};

template <typename F>
bool resolve(void* handle, const char* symbol, F* out, std::string* error) {
  *out = reinterpret_cast<F>(dlsym(handle, symbol));
  if (*out == nullptr && error != nullptr) *error = std::string("libibverbs.so.1 lacks ") + symbol;
  return *out != nullptr;
}

// Loaded once per process and never unloaded: provider drivers keep
// threads and state that outlive a device's close.
const Library* load(std::string* error) {
  static Library lib;
  static std::string failure;
  static bool tried = false;
  if (tried) {
    if (lib.handle == nullptr) *error = failure;
    return lib.handle ? &lib : nullptr;
  }
  tried = true;
  void* h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    failure = std::string("cannot load libibverbs.so.1 (install rdma-core's libibverbs1): ") + dlerror();
    *error = failure;
    return nullptr;
  }
  bool ok = resolve(h, "ibv_get_device_list", &lib.get_device_list, &failure) &&
            resolve(h, "ibv_free_device_list", &lib.free_device_list, &failure) &&
            resolve(h, "ibv_get_device_name", &lib.get_device_name, &failure) &&
            resolve(h, "ibv_open_device", &lib.open_device, &failure) &&
            resolve(h, "ibv_close_device", &lib.close_device, &failure) &&
            resolve(h, "ibv_query_device", &lib.query_device, &failure) &&
            resolve(h, "ibv_query_port", &lib.query_port, &failure) &&
            resolve(h, "ibv_query_gid", &lib.query_gid, &failure) &&
            resolve(h, "ibv_alloc_pd", &lib.alloc_pd, &failure) &&
            resolve(h, "ibv_dealloc_pd", &lib.dealloc_pd, &failure) &&
            resolve(h, "ibv_reg_mr", &lib.reg_mr, &failure) && resolve(h, "ibv_dereg_mr", &lib.dereg_mr, &failure) &&
            resolve(h, "ibv_create_comp_channel", &lib.create_comp_channel, &failure) &&
            resolve(h, "ibv_destroy_comp_channel", &lib.destroy_comp_channel, &failure) &&
            resolve(h, "ibv_create_cq", &lib.create_cq, &failure) &&
            resolve(h, "ibv_destroy_cq", &lib.destroy_cq, &failure) &&
            resolve(h, "ibv_get_cq_event", &lib.get_cq_event, &failure) &&
            resolve(h, "ibv_ack_cq_events", &lib.ack_cq_events, &failure) &&
            resolve(h, "ibv_create_srq", &lib.create_srq, &failure) &&
            resolve(h, "ibv_destroy_srq", &lib.destroy_srq, &failure) &&
            resolve(h, "ibv_create_qp", &lib.create_qp, &failure) &&
            resolve(h, "ibv_modify_qp", &lib.modify_qp, &failure) &&
            resolve(h, "ibv_destroy_qp", &lib.destroy_qp, &failure) &&
            resolve(h, "ibv_create_ah", &lib.create_ah, &failure) &&
            resolve(h, "ibv_destroy_ah", &lib.destroy_ah, &failure);
  resolve(h, "_ibv_query_gid_ex", &lib.query_gid_ex, nullptr);  // older libraries: GID kinds unknown
  if (!ok) {
    *error = failure;
    return nullptr;
  }
  lib.handle = h;
  return &lib;
}

ibv_mtu mtu_enum(uint32_t bytes) {
  if (bytes >= 4096) return IBV_MTU_4096;
  if (bytes >= 2048) return IBV_MTU_2048;
  if (bytes >= 1024) return IBV_MTU_1024;
  if (bytes >= 512) return IBV_MTU_512;
  return IBV_MTU_256;
}

Status status_of(ibv_wc_status s) {
  switch (s) {
    case IBV_WC_SUCCESS: return Status::kSuccess;
    case IBV_WC_WR_FLUSH_ERR: return Status::kFlushed;
    case IBV_WC_RNR_RETRY_EXC_ERR: return Status::kRnrRetryExceeded;
    case IBV_WC_REM_ACCESS_ERR: return Status::kRemoteAccess;
    case IBV_WC_RETRY_EXC_ERR: return Status::kRetryExceeded;
    case IBV_WC_LOC_PROT_ERR: return Status::kLocalProtection;
    default: return Status::kOther;
  }
}

Opcode opcode_of(ibv_wc_opcode o) {
  switch (o) {
    case IBV_WC_RECV: return Opcode::kRecv;
    case IBV_WC_RDMA_READ: return Opcode::kRead;
    case IBV_WC_RDMA_WRITE: return Opcode::kWrite;
    case IBV_WC_FETCH_ADD: return Opcode::kFetchAdd;
    case IBV_WC_COMP_SWAP: return Opcode::kCompareSwap;
    default: return Opcode::kSend;
  }
}

ibv_ah_attr ah_attr(const Address& a, int port) {
  ibv_ah_attr attr{};
  attr.dlid = a.lid;
  attr.sl = a.service_level;
  attr.port_num = static_cast<uint8_t>(port);
  if (a.global) {
    attr.is_global = 1;
    std::memcpy(attr.grh.dgid.raw, a.gid.raw, 16);
    attr.grh.sgid_index = a.gid_index;
    attr.grh.hop_limit = 64;
    attr.grh.traffic_class = a.traffic_class;
  }
  return attr;
}

constexpr uint64_t kDatagramTag = kDeviceWrIdBit;  // the UD queue pair's requests
constexpr int kDatagramSlots = 64;
constexpr size_t kGrhBytes = 40;               // a UD receive starts with the global route header
constexpr uint32_t kQkey = 0x11111111;

class IbverbsDevice final : public Device {
 public:
  IbverbsDevice(const Library* lib, ibv_context* context, std::string name)
      : lib_(lib), context_(context), name_(std::move(name)) {}
  ~IbverbsDevice() override {
    for (ibv_qp* qp : qps_)
      if (qp) lib_->destroy_qp(qp);
    for (auto& [key, ah] : ahs_) lib_->destroy_ah(ah);
    if (ud_) lib_->destroy_qp(ud_);
    if (ud_mr_) lib_->dereg_mr(ud_mr_);
    if (srq_) lib_->destroy_srq(srq_);
    if (cq_) {
      if (unacked_) lib_->ack_cq_events(cq_, unacked_);
      lib_->destroy_cq(cq_);
    }
    if (channel_) lib_->destroy_comp_channel(channel_);
    if (pd_) lib_->dealloc_pd(pd_);
    lib_->close_device(context_);
  }

  std::string name() const override { return name_; }

  bool query_port(int port, PortInfo* info, std::string* error) override {
    ibv_port_attr attr{};
    if (lib_->query_port(context_, static_cast<uint8_t>(port), &attr) != 0) {
      *error = name_ + ": ibv_query_port(" + std::to_string(port) + ") failed: " + std::strerror(errno);
      return false;
    }
    info->active = attr.state == IBV_PORT_ACTIVE;
    info->link = attr.link_layer == IBV_LINK_LAYER_ETHERNET ? LinkLayer::kEthernet : LinkLayer::kInfiniBand;
    info->lid = attr.lid;
    info->mtu_bytes = 128u << attr.active_mtu;
    info->gid_count = attr.gid_tbl_len;
    return true;
  }

  bool query_gid(int port, int index, Gid* gid, GidKind* kind) override {
    ibv_gid raw{};
    if (lib_->query_gid(context_, static_cast<uint8_t>(port), index, &raw) != 0) return false;
    std::memcpy(gid->raw, raw.raw, 16);
    *kind = GidKind::kUnknown;
    ibv_gid_entry entry{};
    if (lib_->query_gid_ex != nullptr &&
        lib_->query_gid_ex(context_, static_cast<uint32_t>(port), static_cast<uint32_t>(index), &entry, 0,
                           sizeof entry) == 0)
      *kind = entry.gid_type == IBV_GID_TYPE_ROCE_V2 ? GidKind::kRoceV2
              : entry.gid_type == IBV_GID_TYPE_ROCE_V1 ? GidKind::kRoceV1
                                                       : GidKind::kInfiniBand;
    return true;
  }

  bool setup(int port, const Resources& sizes, std::string* error) override {
    port_ = port;
    sizes_ = sizes;
    auto failed = [&](const char* call) {
      *error = name_ + ": " + call + " failed: " + std::strerror(errno);
      return false;
    };
    // Within what the device allows (Soft-RoCE's CQs hold 32K entries,
    // some NICs allow fewer outstanding reads than 16).
    ibv_device_attr device{};
    if (lib_->query_device(context_, &device) != 0) return failed("ibv_query_device");
    sizes_.cq_entries = std::min(sizes_.cq_entries, device.max_cqe);
    sizes_.srq_entries = std::min(sizes_.srq_entries, device.max_srq_wr > 0 ? device.max_srq_wr : sizes_.srq_entries);
    sizes_.send_queue_entries = std::min(sizes_.send_queue_entries, device.max_qp_wr);
    reads_in_flight_ = static_cast<uint8_t>(std::clamp(std::min(device.max_qp_rd_atom, device.max_qp_init_rd_atom), 1, 16));
    // IBV_ATOMIC_HCA: atomic among the atomics through this NIC (what
    // rma/rdma.h needs); IBV_ATOMIC_GLOB also with the CPU's.
    atomics_ = device.atomic_cap != IBV_ATOMIC_NONE;
    if (!(pd_ = lib_->alloc_pd(context_))) return failed("ibv_alloc_pd");
    if (!(channel_ = lib_->create_comp_channel(context_))) return failed("ibv_create_comp_channel");
    fcntl(channel_->fd, F_SETFL, fcntl(channel_->fd, F_GETFL) | O_NONBLOCK);
    if (!(cq_ = lib_->create_cq(context_, sizes_.cq_entries, nullptr, channel_, 0))) return failed("ibv_create_cq");
    ibv_srq_init_attr srq_attr{};
    srq_attr.attr.max_wr = static_cast<uint32_t>(sizes_.srq_entries);
    srq_attr.attr.max_sge = 1;
    if (!(srq_ = lib_->create_srq(pd_, &srq_attr))) return failed("ibv_create_srq");
    // The handshake's UD queue pair and its receive buffers.
    ibv_qp_init_attr init{};
    init.send_cq = init.recv_cq = cq_;
    init.qp_type = IBV_QPT_UD;
    init.cap.max_send_wr = kDatagramSlots;
    init.cap.max_recv_wr = kDatagramSlots;
    init.cap.max_send_sge = init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = kMaxDatagram;
    if (!(ud_ = lib_->create_qp(pd_, &init))) return failed("ibv_create_qp(UD)");
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.port_num = static_cast<uint8_t>(port);
    attr.qkey = kQkey;
    if (lib_->modify_qp(ud_, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) != 0)
      return failed("ibv_modify_qp(UD, INIT)");
    attr.qp_state = IBV_QPS_RTR;
    if (lib_->modify_qp(ud_, &attr, IBV_QP_STATE) != 0) return failed("ibv_modify_qp(UD, RTR)");
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = 0;
    if (lib_->modify_qp(ud_, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0) return failed("ibv_modify_qp(UD, RTS)");
    ud_buffers_.resize(kDatagramSlots * (kGrhBytes + kMaxDatagram));
    if (!(ud_mr_ = lib_->reg_mr(pd_, ud_buffers_.data(), ud_buffers_.size(), IBV_ACCESS_LOCAL_WRITE)))
      return failed("ibv_reg_mr(handshake buffers)");
    for (int i = 0; i < kDatagramSlots; ++i) post_datagram_receive(i);
    return true;
  }

  int max_inline() const override { return granted_inline_; }
  bool atomics() const override { return atomics_; }

  bool register_memory(void* address, size_t bytes, Region* region, std::string* error) override {
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
    // One-sided communication's window memory takes the NIC's atomics
    // (rma/rdma.h); a NIC without them refuses the flag.
    if (atomics_) access |= IBV_ACCESS_REMOTE_ATOMIC;
    ibv_mr* mr = lib_->reg_mr(pd_, address, bytes, access);
    if (mr == nullptr) {
      *error = "ibv_reg_mr of " + std::to_string(bytes) + " bytes failed: " + std::strerror(errno);
      return false;
    }
    *region = Region{mr, mr->lkey, mr->rkey};
    return true;
  }
  void deregister_memory(const Region& region) override { lib_->dereg_mr(static_cast<ibv_mr*>(region.handle)); }

  int create_qp(uint32_t* qp_num, std::string* error) override {
    ibv_qp_init_attr init{};
    init.send_cq = init.recv_cq = cq_;
    init.srq = srq_;
    init.qp_type = IBV_QPT_RC;
    init.sq_sig_all = 0;  // completions only for signaled requests: the protocol batches them
    init.cap.max_send_wr = static_cast<uint32_t>(sizes_.send_queue_entries);
    init.cap.max_send_sge = 1;
    init.cap.max_inline_data = static_cast<uint32_t>(sizes_.max_inline);
    ibv_qp* qp = lib_->create_qp(pd_, &init);
    if (qp == nullptr) {
      *error = name_ + ": ibv_create_qp(RC) failed: " + std::strerror(errno);
      return -1;
    }
    granted_inline_ = static_cast<int>(init.cap.max_inline_data);
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.port_num = static_cast<uint8_t>(port_);
    attr.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | (atomics_ ? IBV_ACCESS_REMOTE_ATOMIC : 0);
    if (lib_->modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
      *error = name_ + ": ibv_modify_qp(RC, INIT) failed: " + std::strerror(errno);
      lib_->destroy_qp(qp);
      return -1;
    }
    *qp_num = qp->qp_num;
    qps_.push_back(qp);
    return static_cast<int>(qps_.size()) - 1;
  }

  bool connect_qp(int index, const QpTarget& t, std::string* error) override {
    ibv_qp* qp = qps_[static_cast<size_t>(index)];
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = mtu_enum(t.mtu_bytes);
    attr.dest_qp_num = t.remote_qpn;
    attr.rq_psn = t.remote_psn;
    attr.max_dest_rd_atomic = reads_in_flight_;
    attr.min_rnr_timer = 12;  // 0.64 ms
    attr.ah_attr = ah_attr(t.remote, port_);
    if (lib_->modify_qp(qp, &attr,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                            IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0) {
      *error = name_ + ": ibv_modify_qp(RC, RTR) failed: " + std::strerror(errno);
      return false;
    }
    attr = {};
    attr.qp_state = IBV_QPS_RTS;
    attr.timeout = 14;  // 4.096 us * 2^14 = 67 ms per try
    attr.retry_cnt = t.retry_count;
    attr.rnr_retry = t.rnr_retry;
    attr.sq_psn = t.local_psn;
    attr.max_rd_atomic = reads_in_flight_;
    if (lib_->modify_qp(qp, &attr,
                        IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                            IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
      *error = name_ + ": ibv_modify_qp(RC, RTS) failed: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  void destroy_qp(int index) override {
    ibv_qp*& qp = qps_[static_cast<size_t>(index)];
    if (qp) lib_->destroy_qp(qp);
    qp = nullptr;
  }

  bool post_send(int index, const SendRequest& r, std::string* error) override {
    ibv_sge sge{reinterpret_cast<uintptr_t>(r.local), r.bytes, r.lkey};
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.wr_id = r.wr_id;
    wr.sg_list = &sge;
    wr.num_sge = r.bytes > 0 ? 1 : 0;
    wr.send_flags = (r.inline_data ? unsigned{IBV_SEND_INLINE} : 0u) | (r.signaled ? unsigned{IBV_SEND_SIGNALED} : 0u);
    switch (r.opcode) {
      case Opcode::kFetchAdd:
      case Opcode::kCompareSwap:
        wr.opcode = r.opcode == Opcode::kFetchAdd ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
        wr.wr.atomic.remote_addr = r.remote_address;
        wr.wr.atomic.rkey = r.rkey;
        wr.wr.atomic.compare_add = r.compare_add;
        wr.wr.atomic.swap = r.swap;
        break;
      default:
        wr.opcode = r.opcode == Opcode::kRead ? IBV_WR_RDMA_READ : r.opcode == Opcode::kWrite ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
        wr.wr.rdma.remote_addr = r.remote_address;
        wr.wr.rdma.rkey = r.rkey;
        break;
    }
    int rc = ibv_post_send(qps_[static_cast<size_t>(index)], &wr, &bad);
    if (rc != 0) *error = std::string("ibv_post_send failed: ") + std::strerror(rc);
    return rc == 0;
  }

  bool post_receive(uint64_t wr_id, void* buffer, uint32_t bytes, uint32_t lkey) override {
    ibv_sge sge{reinterpret_cast<uintptr_t>(buffer), bytes, lkey};
    ibv_recv_wr wr{};
    ibv_recv_wr* bad = nullptr;
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    return ibv_post_srq_recv(srq_, &wr, &bad) == 0;
  }

  uint32_t datagram_qpn() const override { return ud_->qp_num; }

  bool send_datagram(const Address& to, uint32_t qpn, const void* data, size_t bytes, std::string* error) override {
    // Address handles are kept per destination: a handshake goes to few.
    std::string key(reinterpret_cast<const char*>(&to.lid), sizeof to.lid);
    key.append(reinterpret_cast<const char*>(to.gid.raw), 16);
    ibv_ah*& ah = ahs_[key];
    if (ah == nullptr) {
      ibv_ah_attr attr = ah_attr(to, port_);
      if (!(ah = lib_->create_ah(pd_, &attr))) {
        ahs_.erase(key);
        *error = name_ + ": ibv_create_ah failed: " + std::strerror(errno);
        return false;
      }
    }
    ibv_sge sge{reinterpret_cast<uintptr_t>(data), static_cast<uint32_t>(bytes), 0};
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.wr_id = kDatagramTag;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    wr.wr.ud.ah = ah;
    wr.wr.ud.remote_qpn = qpn;
    wr.wr.ud.remote_qkey = kQkey;
    int rc = ibv_post_send(ud_, &wr, &bad);
    if (rc != 0) *error = std::string("ibv_post_send(UD) failed: ") + std::strerror(rc);
    return rc == 0;
  }

  size_t take_datagram(void* data, size_t capacity) override {
    if (datagrams_.empty()) return 0;
    std::string& d = datagrams_.front();
    size_t n = std::min(capacity, d.size());
    std::memcpy(data, d.data(), n);
    datagrams_.pop_front();
    return n;
  }

  int poll(Completion* out, int max) override {
    ibv_wc wc[32];
    int got = ibv_poll_cq(cq_, std::min(max, 32), wc);
    int n = 0;
    for (int i = 0; i < got; ++i) {
      if ((wc[i].wr_id & kDatagramTag) != 0) {
        if (wc[i].opcode == IBV_WC_RECV) {
          int slot = static_cast<int>(wc[i].wr_id & 0xffff);
          if (wc[i].status == IBV_WC_SUCCESS && wc[i].byte_len > kGrhBytes)
            datagrams_.emplace_back(reinterpret_cast<const char*>(slot_of(slot)) + kGrhBytes, wc[i].byte_len - kGrhBytes);
          post_datagram_receive(slot);
        }
        continue;
      }
      Completion& c = out[n++];
      c.wr_id = wc[i].wr_id;
      c.status = status_of(wc[i].status);
      c.opcode = opcode_of(wc[i].opcode);
      c.bytes = wc[i].byte_len;
      c.qp_num = wc[i].qp_num;
    }
    return n;
  }

  int completion_fd() const override { return channel_->fd; }
  bool arm() override { return ibv_req_notify_cq(cq_, 0) == 0; }
  void acknowledge_events() override {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    while (lib_->get_cq_event(channel_, &cq, &context) == 0) ++unacked_;
    // Acknowledging takes a lock inside the library: in batches.
    if (unacked_ >= 64) {
      lib_->ack_cq_events(cq_, unacked_);
      unacked_ = 0;
    }
  }

 private:
  uint8_t* slot_of(int slot) { return ud_buffers_.data() + static_cast<size_t>(slot) * (kGrhBytes + kMaxDatagram); }
  void post_datagram_receive(int slot) {
    ibv_sge sge{reinterpret_cast<uintptr_t>(slot_of(slot)), static_cast<uint32_t>(kGrhBytes + kMaxDatagram), ud_mr_->lkey};
    ibv_recv_wr wr{};
    ibv_recv_wr* bad = nullptr;
    wr.wr_id = kDatagramTag | static_cast<uint64_t>(slot);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_post_recv(ud_, &wr, &bad);
  }

  const Library* lib_;
  ibv_context* context_;
  std::string name_;
  int port_ = 1;
  Resources sizes_;
  int granted_inline_ = 0;
  uint8_t reads_in_flight_ = 16;
  bool atomics_ = false;
  ibv_pd* pd_ = nullptr;
  ibv_comp_channel* channel_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_srq* srq_ = nullptr;
  ibv_qp* ud_ = nullptr;
  ibv_mr* ud_mr_ = nullptr;
  std::vector<uint8_t> ud_buffers_;
  std::deque<std::string> datagrams_;
  std::map<std::string, ibv_ah*> ahs_;
  std::vector<ibv_qp*> qps_;
  unsigned unacked_ = 0;
};

}  // namespace

Opened open_ibverbs(const std::string& device_name, int port, std::string* error) {
  const Library* lib = load(error);
  if (lib == nullptr) return {};
  int count = 0;
  ibv_device** list = lib->get_device_list(&count);
  if (list == nullptr || count == 0) {
    if (list) lib->free_device_list(list);
    *error = "no RDMA device found (ibv_get_device_list: " +
             std::string(list == nullptr ? std::strerror(errno) : "0 devices") +
             "; is the kernel module loaded and /dev/infiniband present?)";
    return {};
  }
  Opened opened;
  std::string names;
  for (int i = 0; i < count && !opened.device; ++i) {
    std::string name = lib->get_device_name(list[i]);
    names += (names.empty() ? "" : ", ") + name;
    if (!device_name.empty() && name != device_name) continue;
    ibv_context* context = lib->open_device(list[i]);
    if (context == nullptr) {
      if (!device_name.empty()) *error = name + ": ibv_open_device failed: " + std::strerror(errno);
      continue;
    }
    auto device = std::make_unique<IbverbsDevice>(lib, context, name);
    ibv_device_attr attr{};
    int ports = lib->query_device(context, &attr) == 0 ? attr.phys_port_cnt : 1;
    for (int p = port > 0 ? port : 1; p <= (port > 0 ? port : ports); ++p) {
      PortInfo info;
      std::string ignored;
      if (device->query_port(p, &info, &ignored) && info.active) {
        opened.port = p;
        break;
      }
    }
    if (opened.port > 0) opened.device = std::move(device);
    else if (!device_name.empty())
      *error = name + (port > 0 ? " port " + std::to_string(port) : std::string(" has no port that")) + " is not active (down or not initialised: check ibstat)";
  }
  lib->free_device_list(list);
  if (!opened.device && error->empty())
    *error = device_name.empty() ? "no RDMA device has an active port (devices: " + names + "; check ibstat)"
                                 : "FERRY_IB_DEVICE: no device " + device_name + " (devices: " + names + ")";
  return opened;
}

}  // namespace ferry::transport::verbs
