#include "coll/device_buffers.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/debug.h"
#include "device/staging.h"

namespace ferry::coll {
namespace {

// What a deferred HostStaging hands on to the schedule its call builds next.
thread_local std::shared_ptr<StagedBuffers> handed_on;
thread_local bool staging_alive = false;

Err copy_error(const std::string& text) { return fail(MPI_ERR_OTHER, "GPU buffer: %s", text.c_str()); }

}  // namespace

StagedBuffers::~StagedBuffers() {
  for (Staged& s : buffers_) std::free(s.host);
}

Err StagedBuffers::copy_in() {
  Err first;
  for (Staged& s : buffers_)
    if (s.input)
      if (auto error = device::staging::copy(s.host, s.device, s.bytes); error && first.ok()) first = copy_error(*error);
  in_failed_ = !first.ok();
  return first;
}

Err StagedBuffers::copy_out() {
  Err first;
  if (in_failed_) return first;
  for (Staged& s : buffers_)
    if (s.output)
      if (auto error = device::staging::copy(s.device, s.host, s.bytes); error && first.ok()) first = copy_error(*error);
  return first;
}

HostStaging::HostStaging(bool deferred)
    : state_(std::make_shared<StagedBuffers>()), deferred_(deferred), was_active_(staging_alive) {
  staging_alive = true;
  if (deferred_) handed_on = state_;
}

bool HostStaging::active() { return staging_alive; }

std::shared_ptr<StagedBuffers> take_deferred_staging() { return std::move(handed_on); }

void* HostStaging::stage(const void* buffer, MPI_Aint lo, MPI_Aint hi, bool input, bool output) {
  if (!on_gpu(buffer) || hi <= lo) return const_cast<void*>(buffer);
  auto bytes = static_cast<size_t>(hi - lo);
  // An output goes in too: what the receive type leaves alone in the span
  // must reach the GPU again unchanged.
  input = input || output;
  StagedBuffers::Staged s{const_cast<char*>(static_cast<const char*>(buffer)) + lo,
                          static_cast<char*>(std::malloc(bytes)), bytes, input, output};
  state_->buffers_.push_back(s);
  if (input && !deferred_ && !error_)
    if (auto error = device::staging::copy(s.host, s.device, bytes)) error_ = copy_error(*error);
  FERRY_DEBUG(kCuda, "collective: %zu bytes of a GPU buffer staged through host memory", bytes);
  // The host copy stands in for the buffer at the same offsets.
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(s.host) - static_cast<uintptr_t>(lo));
}

Err HostStaging::finish() {
  if (deferred_) return std::move(error_);
  if (error_.ok()) error_ = state_->copy_out();
  return std::move(error_);
}

HostStaging::~HostStaging() {
  // Handed on but not taken (the call failed before building a schedule):
  // the next call must not find it.
  if (deferred_ && handed_on == state_) handed_on.reset();
  staging_alive = was_active_;
}

ByteSpan span_of(const Datatype* t, int64_t count) {
  if (count <= 0) return {};
  return ByteSpan{t->true_lb, static_cast<MPI_Aint>(count - 1) * t->extent + t->true_lb + t->true_extent};
}

ByteSpan span_of_w(const Datatype* const types[], CountArray counts, DisplArray byte_displs, int n) {
  ByteSpan all;
  bool any = false;
  for (int i = 0; i < n; ++i) {
    if (counts[i] <= 0) continue;
    ByteSpan one = span_of(types[i], counts[i]);
    auto shift = static_cast<MPI_Aint>(byte_displs[i]);
    all.lo = any ? std::min(all.lo, one.lo + shift) : one.lo + shift;
    all.hi = any ? std::max(all.hi, one.hi + shift) : one.hi + shift;
    any = true;
  }
  return all;
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

}  // namespace ferry::coll
