// Same-host GPU messages in one copy, with CUDA IPC: the single-copy
// rendezvous of p2p/engine.h with GPU memory in place of CMA.
//
// The sender exports the allocation that holds its buffer
// (cuIpcGetMemHandle) and the rendezvous request carries the export as its
// key: the 64-byte handle, the allocation's address and its buffer id
// (transport/memory.h, kMaxKeyBytes). The receiver maps the allocation
// (cuIpcOpenMemHandle, kept open per peer and allocation by
// device/ipc_cache.h, reopened when the buffer id changes) and copies the
// message straight out of it into its own buffer, GPU or host memory, with
// one cuMemcpyAsync. Where that is impossible (no driver, memory the driver
// will not export, a peer in another container) expose or read answers no
// and the message takes the staged path through the ring (p2p/pack_stream.h),
// with a FERRY_DEBUG=cuda line saying why.
//
// Messages below FERRY_CUDA_IPC_THRESHOLD stay on the staged path: opening a
// mapping the first time costs more than staging a small message.
#pragma once

#include <memory>

#include "device/ipc_cache.h"
#include "transport/transport.h"

namespace ferry::transport::shm {

class CudaIpc {
 public:
  CudaIpc();
  ~CudaIpc();

  // GPU messages of at least this many bytes are offered for IPC.
  size_t threshold() const { return threshold_; }
  // Fills `remote` with the export of GPU memory `local`; false if it
  // cannot be exported.
  bool expose(const MemoryRef& local, RemoteBuffer* remote);
  // Copies op->bytes out of a peer's exported GPU buffer into op->local:
  // kDone, or kUnsupported when it cannot (nothing copied).
  Started read(OneSided* op);

 private:
  size_t threshold_;
  std::unique_ptr<device::IpcCache> cache_;  // made at the first read
  bool refused_logged_ = false;
};

}  // namespace ferry::transport::shm
