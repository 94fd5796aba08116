// Collective schedules (coll/schedule.h) that run on the user's GPU buffers
// themselves, with no copy of the whole buffers through the host.
//
// The algorithms move data with point-to-point messages, which take GPU
// memory already (p2p/data_access.h: CUDA IPC on one host, staging across
// hosts), and do local work with two kinds of step: reductions and copies.
// On GPU memory a reduction runs as a GPU kernel (device/kernels.h) and a
// copy as cuMemcpy; the scratch buffers the algorithms ask for are GPU
// memory beside the user's buffers (device/staging.h's pool). So the same
// algorithm from the same selection table runs, on the GPU.
//
// Each rank decides for itself: what goes over the wire does not depend on
// where a rank keeps its data, so a rank with GPU buffers and one with host
// buffers still meet in the same collective.
//
// Where no kernel applies (user-defined ops, MAXLOC/MINLOC, types without
// one, a libmpi built without nvcc), device_collectives.cc stages the
// whole call through the host instead (coll/device_buffers.h); a step
// that meets such a case anyway stages just its own operands.
#pragma once

#include <optional>

#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "device/kernels.h"

namespace ferry::coll::gpu {

// While one lives, the schedules this thread makes put their scratch in
// GPU memory in the CUDA context of `near`, a GPU buffer of the call.
class ScratchOnGpu {
 public:
  explicit ScratchOnGpu(const void* near);
  ~ScratchOnGpu();
  ScratchOnGpu(const ScratchOnGpu&) = delete;
  ScratchOnGpu& operator=(const ScratchOnGpu&) = delete;

  // The buffer scratch goes beside, or nullptr for host scratch.
  static const void* near();

 private:
  const void* previous_;
};

// The kernel element for a predefined type: C integers by size and
// signedness, float and double. Other types (long double, complex, pairs
// for MAXLOC) have none.
std::optional<device::kernels::Element> element_of(const Datatype& t);
// The kernel reduction for a predefined operation (none for MAXLOC,
// MINLOC, REPLACE, NO_OP and user-defined ones).
std::optional<device::kernels::Reduction> reduction_of(const Op& op);

// Whether a GPU kernel reduces `type` with `op` (predefined op, predefined
// contiguous type with a kernel, kernels loaded).
bool gpu_reducible(const Op& op, const Datatype& type);

// Whether a schedule step touching `a` and `b` must run as GPU work.
bool touches_gpu(const void* a, const void* b);

// inout = in op inout, for `count` elements, where either is GPU memory.
Err reduce(const Op& op, const void* in, void* inout, MPI_Count count, const Datatype& type);
// The copy step of coll/schedule.h where either side is GPU memory.
Err copy(const void* src, MPI_Count scount, const Datatype& stype, void* dst, MPI_Count rcount,
         const Datatype& rtype);

}  // namespace ferry::coll::gpu
