// Same-host GPU messages in one copy, with CUDA IPC: the single-copy
// rendezvous of p2p/engine.h with GPU memory in place of CMA.
//
// The sender exports the allocation that holds its buffer
// (cuIpcGetMemHandle, once per allocation: device/ipc_exports.h) and the
// rendezvous request carries the export as its key: the 64-byte handle, the allocation's address and its buffer id
// (transport/memory.h, kMaxKeyBytes). The receiver maps the allocation
// (cuIpcOpenMemHandle, kept open per peer and allocation by
// device/ipc_cache.h, reopened when the buffer id changes) and copies the
// message straight out of it into its own buffer, GPU or host memory, with
// one cuMemcpyAsync. Where that is impossible (no driver, memory the driver
// will not export, a peer in another container) expose or read answers no
// and the message takes the staged path through the ring (p2p/pack_stream.h),
// with a FERRY_DEBUG=cuda line saying why.
//
// No copy is waited for: read() queues it with an event behind it and
// answers kPending, and progress() reports it done when the event says so.
// The receiver keeps progressing meanwhile, and the copies of several
// messages queue back to back on the GPU (one copy's completion costs ~9 us
// under MPS on an H200, as much as 4 MiB of copying: docs/performance.md).
// Even for a small message, polling the event from progress is quicker
// than cuStreamSynchronize: an 8-byte copy out of an IPC mapping with an
// event record and cuEventQuery until done took 9.16 us, with
// cuStreamSynchronize 9.95 us (tests/gpu/primitives.cu, H200 under MPS).
// Only when kMaxInFlight copies are under way is one waited for in place.
//
// Messages below FERRY_CUDA_IPC_THRESHOLD (default 0: all) stay on the
// staged path. IPC moves even a small message with one GPU operation, the
// receiver's copy, where staging takes two (one in each process: on a GPU
// the ranks share without MPS, each is a switch between their contexts);
// the first message from an allocation pays for opening its mapping, then
// the mapping is reused.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "device/ipc_cache.h"
#include "device/staging.h"
#include "transport/transport.h"

namespace ferry::transport::shm {

class CudaIpc {
 public:
  CudaIpc();
  ~CudaIpc();

  // GPU messages of at least this many bytes are offered for IPC.
  size_t threshold() const { return threshold_; }
  // Fills `remote` with the export of GPU memory `local` (as local.described
  // says, if set); false if it cannot be exported.
  bool expose(const MemoryRef& local, RemoteBuffer* remote);
  // Copies op->bytes out of a peer's exported GPU buffer into op->local:
  // kPending (the copy under way: progress() ends it), kDone (nothing to
  // copy, or copied in place with every slot taken), or kUnsupported when
  // it cannot (nothing copied).
  Started read(OneSided* op);
  // Ends the copies that have finished, in the order they started (one
  // stream per GPU runs them in that order; across GPUs a slow copy holds
  // back the report of later ones, nothing more), calling each one's
  // on_done; returns how many ended.
  int progress();
  // Whether a copy is under way (the process must not sleep: nothing but
  // polling would notice it end).
  bool busy() const { return in_flight_ > 0; }

 private:
  size_t threshold_;
  std::unique_ptr<device::IpcCache> cache_;  // made at the first read
  bool refused_logged_ = false;

  // Copies under way, oldest first, in a fixed ring: a read that finds it
  // full waits for its copy in place instead.
  struct InFlight {
    OneSided* op;
    device::staging::PendingCopy copy;
  };
  static constexpr size_t kMaxInFlight = 64;
  // The IPC cache closes its least recently used mapping when full; the
  // mappings of copies under way are among the kMaxInFlight most recently
  // used, so that is never one of them.
  static_assert(kMaxInFlight < device::IpcCache::kMaxMappings);
  InFlight in_flight_ops_[kMaxInFlight];
  size_t oldest_ = 0;
  size_t in_flight_ = 0;
  std::string failure_;  // the text on_done is given for a failed copy
};

}  // namespace ferry::transport::shm
