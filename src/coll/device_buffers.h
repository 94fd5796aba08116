// Collectives on GPU buffers: staged through host memory.
//
// A collective's algorithms copy and reduce locally (coll/fold.h,
// base/reduce_kernels.h), which the host cannot do on GPU memory. So a
// blocking collective whose significant buffers include GPU memory runs as
// three phases: copy each GPU input into a host buffer (the span of its
// elements, device/staging.h), run the same algorithm from the same
// selection table on the host buffers, copy each GPU output back. MPI_IN_PLACE
// works unchanged: the receive buffer is then both an input and an output.
// Reductions run on the host copies here (the collectives that can run on
// their GPU buffers themselves, with GPU kernels, are coll/device_schedule.h's).
// An output is copied in as well as out: the bytes of its span that the
// receive type does not cover (holes of a strided type, gaps between
// v-form blocks) must come back as they were.
//
// While a staging lives, the collective it wraps runs as usual
// (gpu::for_launch answers nothing): a GPU buffer that had nothing to stage
// (an empty span) reaches the host path, where it moves no bytes, instead
// of asking to be staged again.
//
// Cost: two or three extra copies of the data across PCIe (or NVLink) per
// call, on top of the host algorithm's own.
//
// The nonblocking and persistent forms stage the same way, but the copies
// are rounds of their schedule: a deferred HostStaging hands its host
// copies to the next nonblocking or persistent schedule built on this
// thread (take_deferred_staging), which copies the inputs in as its first
// round and the outputs back as its last, at every start of a persistent
// one, and owns the host copies for as long as it lives. Every collective
// stages this way where it cannot run on its GPU buffers themselves,
// alltoallw and the neighbourhood collectives included.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/datatype.h"
#include "base/error.h"
#include "coll/count_array.h"
#include "device/device.h"

namespace ferry::coll {

// The host copies of one call's GPU buffers, and which way each goes.
class StagedBuffers {
 public:
  StagedBuffers() = default;
  StagedBuffers(const StagedBuffers&) = delete;
  StagedBuffers& operator=(const StagedBuffers&) = delete;
  ~StagedBuffers();
  // GPU to host, for each input; host to GPU, for each output. The first
  // failed copy is the result (the rest are still made). After a failed
  // copy_in, copy_out copies nothing: the host copies hold no result.
  Err copy_in();
  Err copy_out();

 private:
  friend class HostStaging;
  bool in_failed_ = false;
  struct Staged {
    char* device;  // the user's buffer + lo
    char* host;
    size_t bytes;
    bool input;
    bool output;
  };
  std::vector<Staged> buffers_;
};

// Stand-ins in host memory for the GPU buffers of one call.
class HostStaging {
 public:
  // `deferred` (nonblocking and persistent forms): nothing is copied here;
  // the copies become rounds of the next schedule (above).
  explicit HostStaging(bool deferred = false);
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;
  ~HostStaging();

  // The pointer to pass for `buffer`, whose significant bytes are
  // [lo, hi) relative to it: itself for host memory, MPI_IN_PLACE and an
  // empty span, else a host copy (copied in first if `input` or `output`;
  // copied back by finish() if `output`).
  void* stage(const void* buffer, MPI_Aint lo, MPI_Aint hi, bool input, bool output);
  // Copies the outputs back to the GPU. The first failure of a copy (here or
  // in stage) is the result. Deferred: nothing to copy now.
  Err finish();
  bool staged_any() const { return !state_->buffers_.empty(); }
  // Whether a staging is alive on this thread (above).
  static bool active();

 private:
  std::shared_ptr<StagedBuffers> state_;
  bool deferred_;
  Err error_;
  bool was_active_;
};

// The host copies a deferred HostStaging on this thread handed on, once:
// nullptr if there are none (or they were taken).
std::shared_ptr<StagedBuffers> take_deferred_staging();

// The bytes `count` elements of `t` occupy from the buffer's address.
struct ByteSpan {
  MPI_Aint lo = 0;
  MPI_Aint hi = 0;
};
ByteSpan span_of(const Datatype* t, int64_t count);
// The same for blocks at displacements (in elements of t): the v-forms.
ByteSpan span_of(const Datatype* t, CountArray counts, DisplArray displs, int n);
// Blocks of `count` elements, `n` of them one after another.
ByteSpan span_of_blocks(const Datatype* t, MPI_Count count, int n);
// Blocks with a type each, at displacements in bytes: the w-forms.
ByteSpan span_of_w(const Datatype* const types[], CountArray counts, DisplArray byte_displs, int n);

// Whether `buffer` is GPU memory (false for MPI_IN_PLACE and NULL).
inline bool on_gpu(const void* buffer) {
  return device::enabled() && buffer != nullptr && buffer != MPI_IN_PLACE &&
         device::memory_of(buffer) == device::Memory::kDevice;
}

}  // namespace ferry::coll
