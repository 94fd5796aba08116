#include "transport/shm/cuda_ipc.h"

#include <cstring>

#include "common/config.h"
#include "common/debug.h"
#include "device/device.h"
#include "device/ipc_exports.h"
#include "device/staging.h"

namespace ferry::transport::shm {
namespace {

// The key's layout: handle, then the allocation's base and buffer id.
static_assert(sizeof(device::IpcHandle) + 2 * sizeof(uint64_t) <= kMaxKeyBytes);
constexpr size_t kKeyBytes = sizeof(device::IpcHandle) + 2 * sizeof(uint64_t);

void put_export(const device::IpcExport& e, RemoteBuffer* remote) {
  std::memcpy(remote->key, e.handle.bytes, sizeof e.handle.bytes);
  std::memcpy(remote->key + sizeof e.handle.bytes, &e.base, sizeof e.base);
  std::memcpy(remote->key + sizeof e.handle.bytes + sizeof e.base, &e.buffer_id, sizeof e.buffer_id);
  remote->key_bytes = static_cast<uint8_t>(kKeyBytes);
}

device::IpcExport get_export(const RemoteBuffer& remote) {
  device::IpcExport e;
  std::memcpy(e.handle.bytes, remote.key, sizeof e.handle.bytes);
  std::memcpy(&e.base, remote.key + sizeof e.handle.bytes, sizeof e.base);
  std::memcpy(&e.buffer_id, remote.key + sizeof e.handle.bytes + sizeof e.base, sizeof e.buffer_id);
  return e;
}

}  // namespace

CudaIpc::CudaIpc() : threshold_(static_cast<size_t>(config::integer("FERRY_CUDA_IPC_THRESHOLD"))) {}
CudaIpc::~CudaIpc() = default;

bool CudaIpc::expose(const MemoryRef& local, RemoteBuffer* remote) {
  if (!device::enabled() || local.kind != MemoryKind::kDevice) return false;
  // The allocation's buffer id keys the receiver's mapping: as the request
  // found it when it was made (p2p/data_access.h locate), else confirmed by
  // the memory-type cache.
  device::PointerInfo info = local.described != nullptr ? *local.described : device::describe(local.data);
  if (info.memory != device::Memory::kDevice) return false;
  device::IpcExport e;
  if (int code = device::export_allocation(info, &e); code != 0) {
    FERRY_DEBUG(kCuda, "cannot export a GPU buffer for IPC (%s): staged through the ring",
                device::error_text("cuIpcGetMemHandle", code).c_str());
    return false;
  }
  // The receiver copies on its own stream, in another process: nothing
  // there orders it after a kernel this process queued on the legacy
  // default stream, so that work must be done before the buffer is
  // offered. Waiting for the stream queues no GPU work of ours (a copy
  // would: on a GPU shared without MPS, each switch between the two
  // processes' contexts costs about 75 us).
  if (int code = device::installed->synchronize_legacy(info.context, info.device); code != 0) {
    FERRY_DEBUG(kCuda, "cannot order a GPU buffer before IPC (%s): staged through the ring",
                device::error_text("cuStreamSynchronize", code).c_str());
    return false;
  }
  remote->address = reinterpret_cast<uintptr_t>(local.data);
  remote->kind = MemoryKind::kDevice;
  put_export(e, remote);
  return true;
}

Started CudaIpc::read(OneSided* op) {
  if (!device::enabled() || op->remote.kind != MemoryKind::kDevice || op->remote.key_bytes != kKeyBytes)
    return Started::kUnsupported;
  if (op->bytes == 0) return Started::kDone;
  device::IpcExport e = get_export(op->remote);
  if (!cache_) cache_ = std::make_unique<device::IpcCache>(device::installed);
  int device_ordinal = 0;
  if (op->local.kind == MemoryKind::kDevice)
    device_ordinal =
        op->local.described != nullptr ? op->local.described->device : device::describe(op->local.data).device;
  std::string error;
  // The mapping's description carries the copy (its context's stream): the
  // copy asks the driver nothing about either pointer.
  device::PointerInfo mapping;
  void* mapped = cache_->open(op->peer, e, device_ordinal, &error, &mapping);
  if (mapped == nullptr) {
    // Once per transport: a peer in another container, or a driver that
    // refuses, refuses every time.
    if (!refused_logged_) FERRY_DEBUG(kCuda, "peer %d: CUDA IPC refused (%s): GPU messages staged through the ring",
                                      op->peer, error.c_str());
    refused_logged_ = true;
    return Started::kUnsupported;
  }
  const char* source = static_cast<const char*>(mapped) + (op->remote.address - e.base);
  if (in_flight_ < kMaxInFlight) {
    InFlight& slot = in_flight_ops_[(oldest_ + in_flight_) % kMaxInFlight];
    if (auto failure = device::staging::copy_start(mapping, op->local.data, source, op->bytes, &slot.copy)) {
      FERRY_DEBUG(kCuda, "peer %d: copy out of its GPU buffer failed (%s): staged through the ring instead",
                  op->peer, failure->c_str());
      return Started::kUnsupported;
    }
    slot.op = op;
    ++in_flight_;
    FERRY_DEBUG(kCuda, "peer %d: %zu bytes of GPU memory being read through CUDA IPC", op->peer, op->bytes);
    return Started::kPending;
  }
  // Every slot taken: this one is waited for in place.
  if (auto failure = device::staging::copy(mapping, op->local.data, source, op->bytes)) {
    FERRY_DEBUG(kCuda, "peer %d: copy out of its GPU buffer failed (%s): staged through the ring instead", op->peer,
                failure->c_str());
    return Started::kUnsupported;
  }
  FERRY_DEBUG(kCuda, "peer %d: %zu bytes of GPU memory read through CUDA IPC", op->peer, op->bytes);
  return Started::kDone;
}

int CudaIpc::progress() {
  int ended = 0;
  while (in_flight_ > 0) {
    InFlight& slot = in_flight_ops_[oldest_];
    std::optional<std::string> error;
    if (!device::staging::copy_finished(&slot.copy, &error)) break;
    OneSided* op = slot.op;
    oldest_ = (oldest_ + 1) % kMaxInFlight;
    --in_flight_;
    ++ended;
    // The sender is told either way (p2p/engine.cc): its send completes,
    // and the receive fails with this text.
    if (error) failure_ = *error;
    op->on_done(op, error ? failure_.c_str() : nullptr);
  }
  return ended;
}

}  // namespace ferry::transport::shm
