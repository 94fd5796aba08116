// Where a buffer lives, and what a peer needs to reach it one-sidedly.
//
// Every buffer handed to a transport says whether it is host or device (GPU)
// memory, so that a transport never points the kernel (CMA) or a NIC at
// memory it cannot touch: it answers kUnsupported instead, and the p2p layer
// moves the data in packets (staging device memory where it is already
// streamed in chunks, p2p/pack_stream.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::transport {

enum class MemoryKind : uint8_t {
  kHost,
  kDevice,  // CUDA device memory (not managed memory, which the host can touch)
};

struct MemoryRef {
  void* data = nullptr;
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;  // the GPU's ordinal, for kDevice
};

// A registration key: what a NIC (an rkey) or a GPU driver (a 64-byte IPC
// handle, and the allocation's address and buffer id: transport/shm/cuda_ipc.h)
// needs besides the address. Empty for cross-memory attach, which needs
// none. It travels as the payload of a rendezvous request
// (transport/packet.h: kFlagDirect), so it costs nothing when empty.
constexpr size_t kMaxKeyBytes = 80;

// A buffer of a peer's, as its transport exposed it (Transport::expose).
struct RemoteBuffer {
  uint64_t address = 0;
  MemoryKind kind = MemoryKind::kHost;
  uint8_t key_bytes = 0;
  uint8_t key[kMaxKeyBytes];
};

}  // namespace ferry::transport
