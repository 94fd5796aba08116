#include "core/request.h"

#include <memory>
#include <new>
#include <type_traits>

#include "core/datatype.h"
#include "core/handles.h"
#include "core/progress.h"

namespace ferry::requests {

static_assert(std::is_trivially_destructible_v<Request>, "acquire() resets requests in place");
namespace {

constexpr uint32_t kChunkBits = 8;
constexpr uint32_t kChunkSize = 1u << kChunkBits;

struct Pool {
  std::vector<std::unique_ptr<Request[]>> chunks;
  std::vector<Request*> free;
  size_t live = 0;

  void grow() {
    uint32_t base = static_cast<uint32_t>(chunks.size()) * kChunkSize;
    chunks.push_back(std::make_unique<Request[]>(kChunkSize));
    Request* chunk = chunks.back().get();
    // Pushed in reverse so that low indices are handed out first.
    for (uint32_t i = kChunkSize; i-- > 0;) {
      chunk[i].handle = handle::make_dynamic(handle::Object::kRequest, base + i);
      free.push_back(&chunk[i]);
    }
  }
};

Pool the_pool;
Pool& pool() { return the_pool; }

}  // namespace

// The pool has its own lock: requests are taken outside the engine lock
// (starting an operation) and given back inside it (a request the user freed
// completes during progress).
std::mutex pool_mutex;

struct PoolLock {
  PoolLock() {
    if (progress::threads_enabled) pool_mutex.lock();
  }
  ~PoolLock() {
    if (progress::threads_enabled) pool_mutex.unlock();
  }
};

Request* acquire() {
  PoolLock lock;
  Pool& p = pool();
  if (p.free.empty()) p.grow();
  Request* r = p.free.back();
  p.free.pop_back();
  MPI_Request h = r->handle;
  // Reset in place (a Request is trivially destructible): no temporary to copy.
  new (r) Request{};
  r->handle = h;
  ++p.live;
  return r;
}

void release(Request* r) {
  // A derived datatype lives while a request uses it (MPI-3.1 §4.1.9).
  datatypes::release(r->datatype);
  PoolLock lock;
  Pool& p = pool();
  // acquire() resets the rest; find() and any_of() know a free slot by
  // its null communicator.
  r->comm = nullptr;
  r->datatype = nullptr;
  r->active = false;
  p.free.push_back(r);
  --p.live;
}

Request* find(MPI_Request h) {
  if (!handle::is_dynamic(h, handle::Object::kRequest)) return nullptr;
  uint32_t index = handle::index_of(h);
  Pool& p = pool();
  uint32_t chunk = index >> kChunkBits;
  if (chunk >= p.chunks.size()) return nullptr;
  Request* r = &p.chunks[chunk][index & (kChunkSize - 1)];
  // A released request is in the free list; `comm == nullptr` marks it, as
  // every live request belongs to a communicator.
  return r->comm != nullptr ? r : nullptr;
}

size_t live() { return pool().live; }

namespace {
// Requests outside the pool, at most one or two per thread in a blocking
// call: the newest last, as each thread untracks its own in reverse order.
std::vector<const Request*> outside;
}  // namespace

void track(const Request* r) {
  PoolLock lock;
  outside.push_back(r);
}

void untrack(const Request* r) {
  PoolLock lock;
  for (size_t i = outside.size(); i-- > 0;) {
    if (outside[i] == r) {
      outside[i] = outside.back();
      outside.pop_back();
      return;
    }
  }
}

bool any_of(const Communicator* c) {
  PoolLock lock;
  Pool& p = pool();
  for (const auto& chunk : p.chunks)
    for (uint32_t i = 0; i < kChunkSize; ++i)
      if (chunk[i].comm == c) return true;
  for (const Request* r : outside)
    if (r->comm == c) return true;
  return false;
}

}  // namespace ferry::requests
