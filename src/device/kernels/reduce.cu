// GPU reduction kernels: dst[i] = src0[i] op src1[i] op ... op src{n-1}[i]
// for i < count, folded left to right, stored to every dst of the outputs;
// one extern "C" kernel per (operation, element type) named as reduce_abi.h
// lists them. nvcc builds them into a fatbin that libmpi embeds;
// device/kernels.cc loads it with cuModuleLoadData and launches them with
// cuLaunchKernel.
//
// Cost: memory-bound. Each element is read n times and written m times, and
// the arithmetic is one instruction per read, so what matters is how wide
// the loads are. When every pointer is 16-byte aligned (cuMemAlloc's always
// are), each thread loads 16 bytes per input at a time (one ld.global.v4)
// and the last count % (16 / sizeof(T)) elements go one at a time;
// otherwise all of them go one at a time. Grid-stride loop: any grid covers
// any count, so the launcher sizes the grid to fill the GPU, not to count.
//
// The loops over the inputs are unrolled to all eight, each step guarded by
// `n`: the pointers are then read from the parameter space by constant
// index, where a loop to `n` would copy the struct to local memory and
// index it there on every element.
//
// In place: a dst may be one of the inputs. Each thread reads position i of
// every input before it writes position i of any dst, and no other thread
// touches position i, so that is safe.
//
// Several outputs (the one-pass allreduce, coll/device_onepass.h): the
// result is computed once and stored to each, so the traffic is n reads and
// m writes per element, the least that gives m buffers the result.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "reduce_abi.h"

namespace {

using ferry::device::kernels::ReduceInputs;
using ferry::device::kernels::ReduceOutputs;
using ferry::device::kernels::kReduceThreads;
constexpr int kMaxInputs = ferry::device::kernels::kReduceMaxInputs;
constexpr int kMaxOutputs = ferry::device::kernels::kReduceMaxOutputs;

// The element functions, (in, inout) -> the new inout, with the host path's
// results (base/reduce_kernels.h, a layer above the device layer, so
// repeated here rather than included): integer arithmetic wraps, as in an
// unsigned type at least as wide as int; logical operations give 0 or 1.
template <typename T>
using Wrapping = std::conditional_t<(sizeof(T) <= sizeof(unsigned)), unsigned, unsigned long long>;

struct Sum {
  template <typename T>
  __device__ static T of(T in, T inout) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wrapping<T>(in) + Wrapping<T>(inout));
    else return in + inout;
  }
};
struct Prod {
  template <typename T>
  __device__ static T of(T in, T inout) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wrapping<T>(in) * Wrapping<T>(inout));
    else return in * inout;
  }
};
struct Max {
  template <typename T>
  __device__ static T of(T in, T inout) { return in > inout ? in : inout; }
};
struct Min {
  template <typename T>
  __device__ static T of(T in, T inout) { return in < inout ? in : inout; }
};
struct LogicalAnd {
  template <typename T>
  __device__ static T of(T in, T inout) { return static_cast<T>(in != T(0) && inout != T(0)); }
};
struct LogicalOr {
  template <typename T>
  __device__ static T of(T in, T inout) { return static_cast<T>(in != T(0) || inout != T(0)); }
};
struct LogicalXor {
  template <typename T>
  __device__ static T of(T in, T inout) { return static_cast<T>((in != T(0)) != (inout != T(0))); }
};
struct BitAnd {
  template <typename T>
  __device__ static T of(T in, T inout) { return static_cast<T>(in & inout); }
};
struct BitOr {
  template <typename T>
  __device__ static T of(T in, T inout) { return static_cast<T>(in | inout); }
};
struct BitXor {
  template <typename T>
  __device__ static T of(T in, T inout) { return static_cast<T>(in ^ inout); }
};

// 16 bytes as one vector load, seen as 16 / sizeof(T) elements.
template <typename T>
union Pack {
  static constexpr int kLanes = 16 / sizeof(T);
  uint4 raw;
  T lane[kLanes];
};

__device__ bool aligned_16(const ReduceOutputs& out, const ReduceInputs& in) {
  uintptr_t bits = 0;
#pragma unroll
  for (int k = 0; k < kMaxOutputs; ++k)
    if (k < out.n) bits |= reinterpret_cast<uintptr_t>(out.p[k]);
#pragma unroll
  for (int k = 0; k < kMaxInputs; ++k)
    if (k < in.n) bits |= reinterpret_cast<uintptr_t>(in.p[k]);
  return (bits & 15) == 0;
}

template <typename T, typename Op>
__device__ void reduce(const ReduceOutputs& out, const ReduceInputs& in, size_t count) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  constexpr int kLanes = Pack<T>::kLanes;

  // Vector path: whole 16-byte packs.
  size_t packs = 0;
  if (aligned_16(out, in)) {
    packs = count / kLanes;
    for (size_t v = first; v < packs; v += stride) {
      Pack<T> acc;
      acc.raw = static_cast<const uint4*>(in.p[0])[v];
#pragma unroll
      for (int k = 1; k < kMaxInputs; ++k) {
        if (k >= in.n) break;
        Pack<T> next;
        next.raw = static_cast<const uint4*>(in.p[k])[v];
#pragma unroll
        for (int l = 0; l < kLanes; ++l) acc.lane[l] = Op::of(acc.lane[l], next.lane[l]);
      }
#pragma unroll
      for (int k = 0; k < kMaxOutputs; ++k) {
        if (k >= out.n) break;
        static_cast<uint4*>(out.p[k])[v] = acc.raw;
      }
    }
  }

  // Element path: what the packs left (all of it when unaligned).
  for (size_t i = packs * kLanes + first; i < count; i += stride) {
    T acc = static_cast<const T*>(in.p[0])[i];
#pragma unroll
    for (int k = 1; k < kMaxInputs; ++k) {
      if (k >= in.n) break;
      acc = Op::of(acc, static_cast<const T*>(in.p[k])[i]);
    }
#pragma unroll
    for (int k = 0; k < kMaxOutputs; ++k) {
      if (k >= out.n) break;
      static_cast<T*>(out.p[k])[i] = acc;
    }
  }
}

}  // namespace

#define FERRY_REDUCE_KERNEL(op, Operation, type, T)                                                       \
  extern "C" __global__ void __launch_bounds__(kReduceThreads)                                            \
      ferry_reduce_##op##_##type(ReduceOutputs outputs, ReduceInputs inputs, unsigned long long count) {  \
    reduce<T, Operation>(outputs, inputs, count);                                                          \
  }
FERRY_REDUCE_KERNELS(FERRY_REDUCE_KERNEL)
