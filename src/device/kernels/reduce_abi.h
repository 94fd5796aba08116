// What the GPU reduction kernels (reduce.cu, compiled by nvcc) and the code
// that launches them (device/kernels.cc, and the unit tests' model) agree
// on: the kernels' names, their parameters and their block size.
//
// Every kernel is `extern "C" __global__ void ferry_reduce_<op>_<type>(
// ReduceOutputs outputs, ReduceInputs inputs, unsigned long long count)`,
// found by that name with cuModuleGetFunction: it writes the same result to
// every output (one, for a reduction step; every rank's receive buffer, for
// the one-pass allreduce of coll/device_onepass.h). The pairs are the host path's
// (base/reduce_kernels.cc) for these ten types: the arithmetic and logical
// operations on every type (logical on floating point is MPICH's extension:
// zero is false, the result 0 or 1), the bitwise ones on the integers.
//
// Plain C++ with no CUDA in it: nvcc and the host compiler both read it.
#pragma once

#include <cstdint>

namespace ferry::device::kernels {

// The inputs, passed by value (the kernel parameter space holds 4 KiB; this
// is 72 bytes): p[0] .. p[n-1], with 1 <= n <= kReduceMaxInputs.
constexpr int kReduceMaxInputs = 8;
struct ReduceInputs {
  const void* p[kReduceMaxInputs];
  int n;
};

// The outputs, likewise: p[0] .. p[n-1], 1 <= n <= kReduceMaxOutputs, each
// given every element of the result. An output may be one of the inputs
// (in place: the kernel reads position i of every input before it writes
// position i anywhere), but two outputs never overlap.
constexpr int kReduceMaxOutputs = 8;
struct ReduceOutputs {
  void* p[kReduceMaxOutputs];
  int n;
};

// Threads per block: a multiple of the warp, small enough that a block
// never waits for registers (the kernels use few).
constexpr unsigned kReduceThreads = 256;

}  // namespace ferry::device::kernels

// X(op, Operation, type, T) for every kernel: `op` and `type` spell its name,
// `Operation` is the element function (Sum, Max, BitXor, ..., as
// base/reduce_kernels.h names them) and `T` the C type.
#define FERRY_REDUCE_INTEGER_TYPES(X, op, Operation) \
  X(op, Operation, i8, int8_t)                       \
  X(op, Operation, u8, uint8_t)                      \
  X(op, Operation, i16, int16_t)                     \
  X(op, Operation, u16, uint16_t)                    \
  X(op, Operation, i32, int32_t)                     \
  X(op, Operation, u32, uint32_t)                    \
  X(op, Operation, i64, int64_t)                     \
  X(op, Operation, u64, uint64_t)
#define FERRY_REDUCE_ALL_TYPES(X, op, Operation)  \
  FERRY_REDUCE_INTEGER_TYPES(X, op, Operation)    \
  X(op, Operation, f32, float)                    \
  X(op, Operation, f64, double)
#define FERRY_REDUCE_KERNELS(X)                    \
  FERRY_REDUCE_ALL_TYPES(X, sum, Sum)              \
  FERRY_REDUCE_ALL_TYPES(X, prod, Prod)            \
  FERRY_REDUCE_ALL_TYPES(X, max, Max)              \
  FERRY_REDUCE_ALL_TYPES(X, min, Min)              \
  FERRY_REDUCE_ALL_TYPES(X, land, LogicalAnd)      \
  FERRY_REDUCE_ALL_TYPES(X, lor, LogicalOr)        \
  FERRY_REDUCE_ALL_TYPES(X, lxor, LogicalXor)      \
  FERRY_REDUCE_INTEGER_TYPES(X, band, BitAnd)      \
  FERRY_REDUCE_INTEGER_TYPES(X, bor, BitOr)        \
  FERRY_REDUCE_INTEGER_TYPES(X, bxor, BitXor)
