// Peers' GPU allocations opened through CUDA IPC, kept open for reuse.
//
// Opening a handle (cuIpcOpenMemHandle) maps the peer's whole allocation and
// costs tens of microseconds; closing it unmaps it. A program sends from the
// same buffers again and again, so a mapping is kept per (peer, allocation)
// and reused while the peer describes the allocation with the same buffer
// id. The driver never reuses a buffer id, so a new id at a known address
// means the peer freed that allocation and made another there: the stale
// mapping is closed and the new one opened. Everything is closed at
// MPI_Finalize (close_all) and when a peer is gone (close_peer).
//
// An open mapping keeps the peer's memory alive after the peer frees it
// (the driver releases it at the last close), so a program that sends
// from ever new allocations would hold ever more GPU memory: at most
// kMaxMappings stay open, the least recently used closed first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "device/device.h"

namespace ferry::device {

// What a receiver needs to open a sender's allocation: the handle, and the
// allocation's address and buffer id that key the cache.
struct IpcExport {
  IpcHandle handle;
  uint64_t base = 0;       // the allocation's address in the sender
  uint64_t buffer_id = 0;  // the driver's id of that allocation
};

class IpcCache {
 public:
  explicit IpcCache(const Ops* ops) : ops_(ops) {}
  ~IpcCache() { close_all(); }

  // The local address of `peer`'s allocation, opening it on GPU `device`
  // if it is not open yet (or was replaced). nullptr with `*error` set
  // ("cuIpcOpenMemHandle: ...") if the driver refuses. `mapping`, if given,
  // gets what the driver said of the mapping when it was opened (its
  // context carries the copies out of it): the mapping stays what it was
  // while it is open, so a message asks the driver nothing about it.
  void* open(int peer, const IpcExport& exported, int device, std::string* error, PointerInfo* mapping = nullptr);
  void close_peer(int peer);
  void close_all();

  size_t open_mappings() const { return mappings_.size(); }
  static constexpr size_t kMaxMappings = 256;
  uint64_t opens() const { return opens_; }

 private:
  struct Mapping {
    uint64_t buffer_id;
    void* mapped;
    uint64_t last_use;
    PointerInfo described;  // the mapping's, asked once when it was opened
  };
  void close_least_recently_used();
  const Ops* ops_;
  std::map<std::pair<int, uint64_t>, Mapping> mappings_;  // by (peer, base)
  uint64_t opens_ = 0;
  uint64_t uses_ = 0;
};

}  // namespace ferry::device
