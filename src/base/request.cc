#include "base/request.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <type_traits>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/handles.h"
#include "progress/progress.h"

namespace ferry {

void set_error(Request* r, const Err& e) {
  if (r->error != MPI_SUCCESS) return;
  r->error = error_code::make(e.mpi_class(), e.message());
  r->status.MPI_ERROR = r->error;
}

}  // namespace ferry

namespace ferry::requests {

static_assert(std::is_trivially_destructible_v<Request>, "acquire() resets requests in place");
namespace {

constexpr uint32_t kChunkBits = 8;
constexpr uint32_t kChunkSize = 1u << kChunkBits;
// A fixed directory (no vector that grow() could move under find() on
// another thread): 16384 chunks, four million requests at once.
constexpr uint32_t kMaxChunks = 1u << 14;

// Guarded by the engine lock (request.h), except the directory, which
// find() reads without it: a chunk is published (release) before any of its
// handles is handed out, and never freed.
struct Pool {
  std::atomic<Request*> chunks[kMaxChunks] = {};
  uint32_t chunk_count = 0;
  std::vector<Request*> free;
  size_t live = 0;

  void grow() {
    if (chunk_count == kMaxChunks) {
      std::fprintf(stderr, "ferry: more than %u requests pending at once\n", kMaxChunks * kChunkSize);
      std::abort();
    }
    uint32_t base = chunk_count * kChunkSize;
    auto* chunk = new Request[kChunkSize];
    // Pushed in reverse so that low indices are handed out first.
    for (uint32_t i = kChunkSize; i-- > 0;) {
      chunk[i].handle = handle::make_dynamic(handle::Object::kRequest, base + i);
      free.push_back(&chunk[i]);
    }
    chunks[chunk_count++].store(chunk, std::memory_order_release);
  }
};

Pool the_pool;
Pool& pool() { return the_pool; }

}  // namespace

Request* acquire() {
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
  delete r->generalized;
  r->generalized = nullptr;
  // After the fields above: a persistent collective's schedule waits for
  // nothing here (it is inactive or just finished) and releases its own
  // references.
  delete r->restartable;
  r->restartable = nullptr;
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
  uint32_t chunk = index >> kChunkBits;
  if (chunk >= kMaxChunks) return nullptr;
  Request* requests = pool().chunks[chunk].load(std::memory_order_acquire);
  if (requests == nullptr) return nullptr;
  Request* r = &requests[index & (kChunkSize - 1)];
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

void track(const Request* r) { outside.push_back(r); }

void untrack(const Request* r) {
  for (size_t i = outside.size(); i-- > 0;) {
    if (outside[i] == r) {
      outside[i] = outside.back();
      outside.pop_back();
      return;
    }
  }
}

namespace {
// Whether a request on `of` (nullptr: a free slot) keeps `c` alive: `of` is `c`, an
// intercommunicator whose local group `c` is (its collectives' local steps may run later), or a
// shadow of either (communicators::shadow: the shadow's messages travel in their context).
bool holds(const Communicator* of, const Communicator* c) {
  if (of == nullptr) return false;
  for (const Communicator* x : {of, static_cast<const Communicator*>(of->local)})
    if (x == c || (x != nullptr && x->shadow_of == c)) return true;
  return false;
}
}  // namespace

bool any_of(const Communicator* c) {
  Pool& p = pool();
  for (uint32_t k = 0; k < p.chunk_count; ++k) {
    const Request* chunk = p.chunks[k].load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < kChunkSize; ++i)
      if (holds(chunk[i].comm, c)) return true;
  }
  for (const Request* r : outside)
    if (holds(r->comm, c)) return true;
  return false;
}

const Request* first_active_of(const Communicator* c) {
  Pool& p = pool();
  for (uint32_t k = 0; k < p.chunk_count; ++k) {
    const Request* chunk = p.chunks[k].load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < kChunkSize; ++i)
      if (chunk[i].comm == c && chunk[i].active) return &chunk[i];
  }
  for (const Request* r : outside)
    if (r->comm == c) return r;
  return nullptr;
}

}  // namespace ferry::requests
