#include "device/staging.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "common/debug.h"
#include "device/device.h"

namespace ferry::device::staging {
namespace {

// Size classes of 4 KiB to 4 MiB, powers of two; larger requests are
// pinned for the one use.
constexpr size_t kSmallest = 4096;
constexpr int kClasses = 11;
// Given back, a class keeps at least kKeptPerClass buffers and up to
// kKeptBytesPerClass of them: the 256 KiB chunks of GPU messages staged in
// chunks (p2p/pack_stream.h: two per send and two per receive) are 16, so a
// window of messages in flight over TCP does not pin (milliseconds) and
// unpin its chunks afresh for every message.
constexpr size_t kKeptPerClass = 4;
constexpr size_t kKeptBytesPerClass = size_t(4) << 20;

struct Pool {
  std::mutex lock;
  std::vector<void*> free[kClasses];
  std::map<void*, bool> pinned;  // every buffer handed out: pinned, or plain memory
  std::map<const void*, void*> streams;  // by context (or by device ordinal + 1, for none)
  // GPU scratch: every buffer handed out, and the ones free for reuse.
  struct DeviceBuffer {
    void* context;
    int device;
    size_t bytes;
  };
  std::map<void*, DeviceBuffer> device_buffers;
  std::vector<void*> device_free;
  // Events for copies under way, free for reuse, by the stream (so the
  // context) they were made for.
  std::map<void*, std::vector<void*>> events;
};
Pool pool;

int class_of(size_t n) {
  size_t size = kSmallest;
  for (int c = 0; c < kClasses; ++c, size <<= 1)
    if (n <= size) return c;
  return -1;
}

size_t class_bytes(int c) { return kSmallest << c; }

size_t kept_in_class(int c) { return std::max(kKeptPerClass, kKeptBytesPerClass / class_bytes(c)); }

void give_event(void* stream, void* event) {
  std::lock_guard<std::mutex> hold(pool.lock);
  pool.events[stream].push_back(event);
}

void free_buffer(void* p, bool pinned) {
  if (pinned) installed->pinned_free(p);
  else std::free(p);
}

}  // namespace

void* stream_for(const PointerInfo& info, std::string* error) {
  const void* key = info.context != nullptr ? info.context : reinterpret_cast<const void*>(uintptr_t(info.device + 1));
  std::lock_guard<std::mutex> hold(pool.lock);
  auto it = pool.streams.find(key);
  if (it != pool.streams.end()) return it->second;
  void* stream = nullptr;
  if (int code = installed->stream_create(info.context, info.device, &stream); code != 0) {
    *error = error_text("cuStreamCreate", code);
    return nullptr;
  }
  pool.streams[key] = stream;
  return stream;
}

PointerInfo side_of(void* dst, const void* src) {
  // The device side's context carries the copy (the source's, if both are).
  PointerInfo side = describe(src);
  if (side.memory == Memory::kHost) side = describe(dst);
  return side;
}

std::optional<std::string> copy(void* dst, const void* src, size_t n) {
  if (n == 0) return std::nullopt;
  return copy(side_of(dst, src), dst, src, n);
}

std::optional<std::string> copy(const PointerInfo& side, void* dst, const void* src, size_t n) {
  if (n == 0) return std::nullopt;
  std::string error;
  void* stream = stream_for(side, &error);
  if (stream == nullptr) return error;
  if (int code = installed->copy_async(dst, src, n, stream); code != 0) return error_text("cuMemcpyAsync", code);
  if (int code = installed->stream_synchronize(stream); code != 0) return error_text("cuStreamSynchronize", code);
  return std::nullopt;
}

std::optional<std::string> copy_many(const PointerInfo& side, const Copy* copies, size_t n) {
  std::string error;
  void* stream = stream_for(side, &error);
  if (stream == nullptr) return error;
  std::optional<std::string> failed;
  for (size_t i = 0; i < n && !failed; ++i)
    if (copies[i].bytes != 0)
      if (int code = installed->copy_async(copies[i].dst, copies[i].src, copies[i].bytes, stream); code != 0)
        failed = error_text("cuMemcpyAsync", code);
  // Waited for even after a failure: the copies queued before it still run.
  if (int code = installed->stream_synchronize(stream); code != 0 && !failed)
    failed = error_text("cuStreamSynchronize", code);
  return failed;
}

std::optional<std::string> copy_2d(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t width,
                                   size_t rows) {
  if (rows == 0 || width == 0) return std::nullopt;
  return copy_2d(side_of(dst, src), dst, dst_pitch, src, src_pitch, width, rows);
}

std::optional<std::string> copy_2d(const PointerInfo& side, void* dst, size_t dst_pitch, const void* src,
                                   size_t src_pitch, size_t width, size_t rows) {
  if (rows == 0 || width == 0) return std::nullopt;
  std::string error;
  void* stream = stream_for(side, &error);
  if (stream == nullptr) return error;
  if (int code = installed->copy_2d_async(dst, dst_pitch, src, src_pitch, width, rows, stream); code != 0)
    return error_text("cuMemcpy2DAsync", code);
  if (int code = installed->stream_synchronize(stream); code != 0) return error_text("cuStreamSynchronize", code);
  return std::nullopt;
}

std::optional<std::string> copy_start(void* dst, const void* src, size_t n, PendingCopy* pending) {
  return copy_start(side_of(dst, src), dst, src, n, pending);
}

std::optional<std::string> copy_start(const PointerInfo& side, void* dst, const void* src, size_t n,
                                      PendingCopy* pending) {
  std::string error;
  void* stream = stream_for(side, &error);
  if (stream == nullptr) return error;
  void* event = nullptr;
  {
    std::lock_guard<std::mutex> hold(pool.lock);
    std::vector<void*>& free = pool.events[stream];
    if (!free.empty()) {
      event = free.back();
      free.pop_back();
    }
  }
  if (event == nullptr) {
    if (int code = installed->event_create(stream, &event); code != 0) return error_text("cuEventCreate", code);
  }
  const char* call = "cuMemcpyAsync";
  int code = installed->copy_async(dst, src, n, stream);
  const bool queued = code == 0;
  if (queued) {
    call = "cuEventRecord";
    code = installed->event_record(event, stream);
  }
  if (code != 0) {
    // A copy queued without its event must still end before the caller
    // takes another way (the receive would be written twice).
    if (queued) installed->stream_synchronize(stream);
    give_event(stream, event);
    return error_text(call, code);
  }
  pending->event = event;
  pending->stream = stream;
  return std::nullopt;
}

bool copy_finished(PendingCopy* pending, std::optional<std::string>* error) {
  int code = installed->event_query(pending->event);
  if (code == kNotReady) return false;
  if (code != 0) *error = error_text("cuMemcpyAsync (seen by cuEventQuery)", code);
  give_event(pending->stream, pending->event);
  *pending = PendingCopy{};
  return true;
}

void* take(size_t n) {
  int c = class_of(n);
  size_t bytes = c < 0 ? n : class_bytes(c);
  std::lock_guard<std::mutex> hold(pool.lock);
  if (c >= 0 && !pool.free[c].empty()) {
    void* p = pool.free[c].back();
    pool.free[c].pop_back();
    return p;
  }
  void* p = nullptr;
  bool pinned = installed != nullptr && installed->pinned_alloc(&p, bytes) == 0;
  if (!pinned) {
    FERRY_DEBUG(kCuda, "cannot pin %zu bytes for staging: plain host memory instead", bytes);
    p = std::malloc(bytes);
  }
  pool.pinned[p] = pinned;
  return p;
}

void give(void* p, size_t n) {
  if (p == nullptr) return;
  int c = class_of(n);
  std::lock_guard<std::mutex> hold(pool.lock);
  if (c >= 0 && pool.free[c].size() < kept_in_class(c)) {
    pool.free[c].push_back(p);
    return;
  }
  auto it = pool.pinned.find(p);
  bool pinned = it != pool.pinned.end() && it->second;
  if (it != pool.pinned.end()) pool.pinned.erase(it);
  free_buffer(p, pinned);
}

void* take_device(const void* near, size_t n, std::string* error) { return take_device(describe(near), n, error); }

void* take_device(const PointerInfo& where, size_t n, std::string* error) {
  std::lock_guard<std::mutex> hold(pool.lock);
  // The smallest free buffer of the same context that is large enough.
  auto best = pool.device_free.end();
  for (auto it = pool.device_free.begin(); it != pool.device_free.end(); ++it) {
    const Pool::DeviceBuffer& b = pool.device_buffers[*it];
    if (b.context == where.context && b.device == where.device && b.bytes >= n &&
        (best == pool.device_free.end() || b.bytes < pool.device_buffers[*best].bytes))
      best = it;
  }
  if (best != pool.device_free.end()) {
    void* p = *best;
    pool.device_free.erase(best);
    return p;
  }
  void* p = nullptr;
  if (int code = installed->device_alloc(where.context, where.device, &p, n > 0 ? n : 1); code != 0) {
    *error = error_text("cuMemAlloc", code);
    return nullptr;
  }
  pool.device_buffers[p] = Pool::DeviceBuffer{where.context, where.device, n};
  return p;
}

void give_device(void* p, size_t) {
  if (p == nullptr) return;
  std::lock_guard<std::mutex> hold(pool.lock);
  pool.device_free.push_back(p);
  if (pool.device_free.size() <= kKeptDevice) return;
  // Too many kept: the smallest goes back to the driver.
  auto smallest = std::min_element(pool.device_free.begin(), pool.device_free.end(), [](void* a, void* b) {
    return pool.device_buffers[a].bytes < pool.device_buffers[b].bytes;
  });
  void* victim = *smallest;
  pool.device_free.erase(smallest);
  installed->device_free(pool.device_buffers[victim].context, victim);
  pool.device_buffers.erase(victim);
}

size_t pooled_device() {
  std::lock_guard<std::mutex> hold(pool.lock);
  return pool.device_free.size();
}

size_t pooled() {
  std::lock_guard<std::mutex> hold(pool.lock);
  size_t n = 0;
  for (auto& f : pool.free) n += f.size();
  return n;
}

void reset() {
  std::lock_guard<std::mutex> hold(pool.lock);
  for (auto& f : pool.free) {
    for (void* p : f) {
      auto it = pool.pinned.find(p);
      free_buffer(p, it != pool.pinned.end() && it->second);
      if (it != pool.pinned.end()) pool.pinned.erase(it);
    }
    f.clear();
  }
  for (void* p : pool.device_free) {
    installed->device_free(pool.device_buffers[p].context, p);
    pool.device_buffers.erase(p);
  }
  pool.device_free.clear();
  for (auto& [stream, free] : pool.events)
    for (void* event : free) installed->event_destroy(event);
  pool.events.clear();
  // Buffers still handed out keep their entry in `pinned` for their give().
  // Streams are not destroyed: the driver ends them with their context.
  pool.streams.clear();
}

}  // namespace ferry::device::staging
