#include "device/ipc_cache.h"

#include "common/debug.h"

namespace ferry::device {

void* IpcCache::open(int peer, const IpcExport& exported, int device, std::string* error, PointerInfo* mapping) {
  auto key = std::make_pair(peer, exported.base);
  auto it = mappings_.find(key);
  ++uses_;
  if (it != mappings_.end()) {
    if (it->second.buffer_id == exported.buffer_id) {
      it->second.last_use = uses_;
      if (mapping != nullptr) *mapping = it->second.described;
      return it->second.mapped;
    }
    // Freed and allocated again at the same address: the old mapping shows
    // memory that is no longer the peer's buffer.
    FERRY_DEBUG(kCuda, "rank %d's allocation at %#llx was replaced: its IPC mapping is reopened", peer,
                static_cast<unsigned long long>(exported.base));
    ops_->ipc_close_handle(it->second.mapped);
    mappings_.erase(it);
  }
  void* mapped = nullptr;
  if (int code = ops_->ipc_open_handle(exported.handle, device, &mapped); code != 0) {
    *error = error_text("cuIpcOpenMemHandle", code);
    return nullptr;
  }
  ++opens_;
  // Where the driver cannot say, the mapping is GPU memory of `device` in
  // its primary context, where ipc_open_handle opened it.
  PointerInfo described;
  if (ops_->pointer_info(mapped, &described) != 0 || described.memory != Memory::kDevice) {
    described = PointerInfo{};
    described.memory = Memory::kDevice;
    described.device = device < 0 ? 0 : device;
  }
  if (mappings_.size() >= kMaxMappings) close_least_recently_used();
  mappings_[key] = Mapping{exported.buffer_id, mapped, uses_, described};
  if (mapping != nullptr) *mapping = described;
  return mapped;
}

void IpcCache::close_least_recently_used() {
  auto oldest = mappings_.begin();
  for (auto it = mappings_.begin(); it != mappings_.end(); ++it)
    if (it->second.last_use < oldest->second.last_use) oldest = it;
  ops_->ipc_close_handle(oldest->second.mapped);
  mappings_.erase(oldest);
}

void IpcCache::close_peer(int peer) {
  for (auto it = mappings_.begin(); it != mappings_.end();) {
    if (it->first.first == peer) {
      ops_->ipc_close_handle(it->second.mapped);
      it = mappings_.erase(it);
    } else {
      ++it;
    }
  }
}

void IpcCache::close_all() {
  for (auto& [key, m] : mappings_) ops_->ipc_close_handle(m.mapped);
  mappings_.clear();
}

}  // namespace ferry::device
