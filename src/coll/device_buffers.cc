#include "coll/device_buffers.h"

#include <algorithm>
#include <cstdlib>

#include "common/debug.h"
#include "device/staging.h"

namespace ferry::coll {

void* HostStaging::stage(const void* buffer, MPI_Aint lo, MPI_Aint hi, bool input, bool output) {
  if (!on_gpu(buffer) || hi <= lo) return const_cast<void*>(buffer);
  auto bytes = static_cast<size_t>(hi - lo);
  Staged s{const_cast<char*>(static_cast<const char*>(buffer)) + lo, static_cast<char*>(std::malloc(bytes)), bytes,
           output};
  buffers_.push_back(s);
  if (input && !error_)
    if (auto error = device::staging::copy(s.host, s.device, bytes))
      error_ = fail(MPI_ERR_OTHER, "GPU buffer: %s", error->c_str());
  FERRY_DEBUG(kCuda, "collective: %zu bytes of a GPU buffer staged through host memory", bytes);
  // The host copy stands in for the buffer at the same offsets.
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(s.host) - static_cast<uintptr_t>(lo));
}

Err HostStaging::finish() {
  for (Staged& s : buffers_) {
    if (s.output && !error_)
      if (auto error = device::staging::copy(s.device, s.host, s.bytes))
        error_ = fail(MPI_ERR_OTHER, "GPU buffer: %s", error->c_str());
    std::free(s.host);
  }
  buffers_.clear();
  return std::move(error_);
}

HostStaging::~HostStaging() {
  for (Staged& s : buffers_) std::free(s.host);
}

ByteSpan span_of(const Datatype* t, int64_t count) {
  if (count <= 0) return {};
  return ByteSpan{t->true_lb, static_cast<MPI_Aint>(count - 1) * t->extent + t->true_lb + t->true_extent};
}

ByteSpan span_of(const Datatype* t, CountArray counts, DisplArray displs, int n) {
  ByteSpan all;
  bool any = false;
  for (int i = 0; i < n; ++i) {
    if (counts[i] <= 0) continue;
    ByteSpan one = span_of(t, counts[i]);
    MPI_Aint shift = static_cast<MPI_Aint>(displs[i]) * t->extent;
    all.lo = any ? std::min(all.lo, one.lo + shift) : one.lo + shift;
    all.hi = any ? std::max(all.hi, one.hi + shift) : one.hi + shift;
    any = true;
  }
  return all;
}

ByteSpan span_of_blocks(const Datatype* t, MPI_Count count, int n) {
  if (count <= 0 || n <= 0) return {};
  return span_of(t, count * n);  // beyond INT_MAX elements in all
}

Err gpu_buffers_unsupported(const char* what) {
  return fail(MPI_ERR_OTHER, "GPU buffers are not supported by %s yet (README \"GPU buffers\")", what);
}

}  // namespace ferry::coll
