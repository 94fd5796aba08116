#include "device/ipc_exports.h"

#include <mutex>
#include <unordered_map>

namespace ferry::device {
namespace {

// Threads may send or run collectives at once (MPI_THREAD_MULTIPLE).
std::mutex lock;
std::unordered_map<uint64_t, IpcHandle> exports;  // by buffer id

}  // namespace

int export_allocation(const PointerInfo& info, IpcExport* out) {
  out->base = info.base;
  out->buffer_id = info.buffer_id;
  std::lock_guard<std::mutex> hold(lock);
  if (auto it = exports.find(info.buffer_id); it != exports.end()) {
    out->handle = it->second;
    return 0;
  }
  if (int code = installed->ipc_get_handle(reinterpret_cast<void*>(info.base), &out->handle); code != 0) return code;
  if (exports.size() >= kMaxExports) exports.clear();
  exports[info.buffer_id] = out->handle;
  return 0;
}

void forget_exports() {
  std::lock_guard<std::mutex> hold(lock);
  exports.clear();
}

}  // namespace ferry::device
