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

namespace ferry::device {
struct PointerInfo;  // device/device.h
}  // namespace ferry::device

namespace ferry::transport {

enum class MemoryKind : uint8_t {
  kHost,
  kDevice,  // CUDA device memory (not managed memory, which the host can touch)
};

struct MemoryRef {
  void* data = nullptr;
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;  // the GPU's ordinal, for kDevice
  // kDevice: what the driver said of the allocation holding `data`, where
  // the caller asked already (a request carries it: p2p/data_access.h
  // locate), read during the call it is passed to; nullptr: the transport
  // asks. A GPU message then asks about each buffer once, not per layer.
  const device::PointerInfo* described = nullptr;
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
