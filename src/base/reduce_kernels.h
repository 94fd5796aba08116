// The predefined reduction kernels (MPI-3.1 §5.9.2, §11.3.4): one typed loop
// per (operation, predefined datatype) that the standard defines, found
// through a table built once.
//
// The element functions below are plain constexpr code with no state, so a
// CUDA translation unit can instantiate the same loops as device kernels
// later; only the table (reduce_kernels.cc) is host code.
#pragma once

#include <cstddef>
#include <type_traits>

#include "mpi.h"

namespace ferry::reduce {

// inout[i] = in[i] op inout[i] for `count` elements of one predefined type.
using Kernel = void (*)(const void* in, void* inout, size_t count);

// The kernel of predefined operation `op` on predefined datatype `type`, or
// nullptr when neither MPI nor MPICH defines `op` for `type` (or either
// handle is not predefined).
Kernel find_kernel(MPI_Op op, MPI_Datatype type);

// Whether every predefined operation on predefined datatype `type` gives
// the same bits whatever order it combines the operands in: the integer
// groups, C and Fortran and MPI_AINT/OFFSET/COUNT (sums and products wrap),
// logical and byte. False for floating point and complex (even MIN and MAX:
// -0.0 against +0.0, NaNs), the MINLOC/MAXLOC pairs, and any other handle.
bool exact_in_any_order(MPI_Datatype type);

// The element types the kernels work on besides the C arithmetic types.
template <typename Value, typename Index>
struct Pair {  // MPI_FLOAT_INT, MPI_2INT, MPI_2REAL, ...: MINLOC/MAXLOC operands
  Value value;
  Index index;
};
template <typename T>
struct Complex {  // C99 _Complex, C++ std::complex and Fortran COMPLEX share this layout
  T re;
  T im;
};

// Integer arithmetic is done in an unsigned type at least as wide as int,
// so that overflow wraps (as the hardware does) instead of being undefined.
template <typename T>
using Wrapping = std::make_unsigned_t<std::common_type_t<T, unsigned>>;

// Element functions: the new inout value from (in, inout).
struct Max {
  template <typename T>
  static constexpr T of(T in, T inout) { return in > inout ? in : inout; }
};
struct Min {
  template <typename T>
  static constexpr T of(T in, T inout) { return in < inout ? in : inout; }
};
struct Sum {
  template <typename T>
  static constexpr T of(T in, T inout) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wrapping<T>(in) + Wrapping<T>(inout));
    else return in + inout;
  }
  template <typename T>
  static constexpr Complex<T> of(Complex<T> in, Complex<T> inout) { return {in.re + inout.re, in.im + inout.im}; }
};
struct Prod {
  template <typename T>
  static constexpr T of(T in, T inout) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(Wrapping<T>(in) * Wrapping<T>(inout));
    else return in * inout;
  }
  // The textbook product, as Fortran and MPICH compute it: no C99 Annex G
  // recovery of infinities, which would cost a library call per element.
  template <typename T>
  static constexpr Complex<T> of(Complex<T> in, Complex<T> inout) {
    return {in.re * inout.re - in.im * inout.im, in.re * inout.im + in.im * inout.re};
  }
};
struct LogicalAnd {
  template <typename T>
  static constexpr T of(T in, T inout) { return static_cast<T>(in != T(0) && inout != T(0)); }
};
struct LogicalOr {
  template <typename T>
  static constexpr T of(T in, T inout) { return static_cast<T>(in != T(0) || inout != T(0)); }
};
struct LogicalXor {
  template <typename T>
  static constexpr T of(T in, T inout) { return static_cast<T>((in != T(0)) != (inout != T(0))); }
};
struct BitAnd {
  template <typename T>
  static constexpr T of(T in, T inout) { return static_cast<T>(in & inout); }
};
struct BitOr {
  template <typename T>
  static constexpr T of(T in, T inout) { return static_cast<T>(in | inout); }
};
struct BitXor {
  template <typename T>
  static constexpr T of(T in, T inout) { return static_cast<T>(in ^ inout); }
};
// MPI-3.1 §5.9.4: the larger (smaller) value wins; on a tie, the smaller index.
struct MaxLoc {
  template <typename V, typename I>
  static constexpr Pair<V, I> of(Pair<V, I> in, Pair<V, I> inout) {
    if (in.value > inout.value) return in;
    if (in.value < inout.value) return inout;
    return {inout.value, in.index < inout.index ? in.index : inout.index};
  }
};
struct MinLoc {
  template <typename V, typename I>
  static constexpr Pair<V, I> of(Pair<V, I> in, Pair<V, I> inout) {
    if (in.value < inout.value) return in;
    if (in.value > inout.value) return inout;
    return {inout.value, in.index < inout.index ? in.index : inout.index};
  }
};
// MPI-3.1 §11.3.4 (accumulate): MPI_REPLACE stores the origin's data.
struct Replace {
  template <typename T>
  static constexpr T of(T in, T) { return in; }
};

// The loop every kernel is. The inner loop has a fixed trip count, so that
// GCC's -O2 vectoriser ("very cheap" cost model: no scalar epilogue of its
// own) vectorises it; the tail runs scalar. `in` and `inout` may be the same
// buffer (each element depends only on itself), never partly overlapping.
template <typename T, typename F>
void typed_loop(const T* __restrict in, T* __restrict inout, size_t count) {
  constexpr size_t kBlock = sizeof(T) >= 64 ? 1 : 64 / sizeof(T);  // one cache line
  size_t i = 0;
  for (; i + kBlock <= count; i += kBlock)
    for (size_t j = 0; j < kBlock; ++j) inout[i + j] = F::of(in[i + j], inout[i + j]);
  for (; i < count; ++i) inout[i] = F::of(in[i], inout[i]);
}

template <typename T, typename F>
void loop(const void* in, void* inout, size_t count) {
  typed_loop<T, F>(static_cast<const T*>(in), static_cast<T*>(inout), count);
}

#if defined(__x86_64__)
// The same loop compiled for AVX2, which find_kernel() hands out where the
// CPU has it: the baseline x86-64 build vectorises with SSE2, 16 bytes per
// instruction, and a sum that stays in cache is bound by that (1 MiB of
// doubles: 42 us with SSE2, 21 us with AVX2 on the 2-core EPYC VM; Open
// MPI's op/avx gives its accumulate 25 us). Element-wise as the baseline,
// so results are the same bit for bit.
// (restrict holds only on parameters, hence two functions as above.)
template <typename T, typename F>
__attribute__((target("avx2"))) void typed_loop_avx2(const T* __restrict in, T* __restrict inout, size_t count) {
  constexpr size_t kBlock = sizeof(T) >= 64 ? 1 : 64 / sizeof(T);
  size_t i = 0;
  for (; i + kBlock <= count; i += kBlock)
    for (size_t j = 0; j < kBlock; ++j) inout[i + j] = F::of(in[i + j], inout[i + j]);
  for (; i < count; ++i) inout[i] = F::of(in[i], inout[i]);
}

template <typename T, typename F>
__attribute__((target("avx2"))) void loop_avx2(const void* in, void* inout, size_t count) {
  typed_loop_avx2<T, F>(static_cast<const T*>(in), static_cast<T*>(inout), count);
}
#endif

}  // namespace ferry::reduce
