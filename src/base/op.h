// Reduction operations (MPI-3.1 §5.9): the predefined ones and users'.
//
// Every reduction in Ferry goes through apply(), one interface, so that a
// CUDA kernel can be added behind it later. The predefined kernels are plain
// loops over typed arrays that the compiler vectorises.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/datatype.h"
#include "base/error.h"
#include "base/handles.h"
#include "mpi.h"

namespace ferry {

struct Op {
  MPI_Op handle;
  const char* name;  // "MPI_SUM", or "user operation"
  bool commutative;
  MPI_User_function* user_fn = nullptr;      // set for MPI_Op_create'd operations
  MPI_User_function_c* user_fn_c = nullptr;  // set for MPI_Op_create_c'd ones (MPI_Count length)

  bool user() const { return user_fn != nullptr || user_fn_c != nullptr; }
};

namespace builtin_ops {
constexpr uint32_t kOps = 15;  // handle indices of MPI_OP_NULL .. MPI_NO_OP
// The predefined operations by handle index (MPI_OP_NULL's slot holds no
// valid operation), and find_op for the others (users' operations).
extern const Op predefined[kOps];
const Op* find_other(MPI_Op handle);
}  // namespace builtin_ops

// The operation behind a handle, or nullptr. Inline for the predefined
// ones, which nearly every reduction names (issue 29); always, as the
// inliner otherwise left it out of line in the larger entry points
// (a call of 19 instructions in MPI_Allreduce).
inline __attribute__((always_inline)) const Op* find_op(MPI_Op h) {
  if (handle::kind_of(h) == handle::kKindBuiltin && handle::object_of(h) == handle::Object::kOp) {
    const uint32_t i = handle::index_of(h);
    return i > 0 && i < builtin_ops::kOps ? &builtin_ops::predefined[i] : nullptr;
  }
  return builtin_ops::find_other(h);
}

namespace builtin_ops {
// The predefined operations on the builtin datatypes (MPI_INT, MPI_DOUBLE,
// ...: kind builtin, slot h & 0xff) that check_op found defined: bit
// (slot % 64) of known[op index][slot / 64]. Their answer never changes,
// so a bit, once up, stays up, and a call that sees it skips the kernel
// table (about 110 instructions per reduction: a call of 0 elements costs
// little else, issue 29). Pairs that fail never get a bit: their error is
// built every time.
inline std::atomic<uint64_t> known[kOps][4];
// The bit of `known` that stands for (op, type): a word and its mask, or
// no word when the pair has none (an op or a type not of kind builtin).
struct PairBit {
  std::atomic<uint64_t>* word;
  uint64_t mask;
};
inline __attribute__((always_inline)) PairBit pair_bit(MPI_Op op, MPI_Datatype type) {
  const uint32_t o = handle::index_of(op);
  if (handle::kind_of(op) != handle::kKindBuiltin || handle::kind_of(type) != handle::kKindBuiltin || o >= kOps)
    return {nullptr, 0};
  const uint32_t slot = static_cast<uint32_t>(type) & 0xff;
  return {&known[o][slot / 64], uint64_t{1} << (slot % 64)};
}
// check_op's whole check, which records in `known` the pairs it finds
// defined.
Err check(const Op& op, const Datatype& type);
}  // namespace builtin_ops

// Whether `op` may be applied to `type` (MPI-3.1 §5.9.2); if not, the error
// names both ("MPI_SUM is not defined for MPI_FLOAT_INT"). For reductions
// (collectives, MPI_Reduce_local): MPI_REPLACE and MPI_NO_OP are refused,
// they belong to one-sided accumulate (§11.3.4). A pair found defined
// before is answered in a few compares (builtin_ops).
inline __attribute__((always_inline)) Err check_op(const Op& op, const Datatype& type) {
  const builtin_ops::PairBit bit = builtin_ops::pair_bit(op.handle, type.handle);
  if (bit.word != nullptr && (bit.word->load(std::memory_order_relaxed) & bit.mask) != 0) [[likely]] return {};
  return builtin_ops::check(op, type);
}
// The same for MPI_Accumulate and friends (MPI-3.1 §11.3.4): predefined
// operations only, MPI_REPLACE and MPI_NO_OP included (on any predefined type).
Err check_accumulate_op(const Op& op, const Datatype& type);

namespace builtin_ops {
// The kernel of each predefined operation on each builtin datatype (slot
// h & 0xff, as in `known`) that apply() has run, nullptr before. A kernel,
// once found, never changes, so apply() reads it without a lock and a
// small reduction calls it straight away: finding it (elements_of,
// find_kernel's table) was about 110 of the 140 instructions that apply()
// spent on two floats, once per operand combined (issue 29: an 8-byte
// MPI_Scan on 2 ranks).
// (reduce_kernels.h's Kernel, spelled out: that header's namespace `reduce`
// would hide the API's function of that name.)
using Kernel = void (*)(const void* in, void* inout, size_t count);
inline std::atomic<Kernel> kernels[kOps][256];
}  // namespace builtin_ops

// apply() for what the cache above does not answer yet: users' operations,
// derived and pair datatypes, and a pair's first use.
void apply_slowly(const Op& op, const void* in, void* inout, MPI_Count count, const Datatype& type);

// inout[i] = in[i] op inout[i] for `count` elements (the argument order of
// MPI_Reduce_local and of user functions: `in` is the earlier rank's data
// for non-commutative ops). check_op or check_accumulate_op must have
// succeeded. A user's function is called once with the whole count: an
// MPI_User_function_c takes any; an int MPI_User_function is called in
// pieces of at most INT_MAX elements (a reduction is elementwise, so the
// pieces give the same result).
inline void apply(const Op& op, const void* in, void* inout, MPI_Count count, const Datatype& type) {
  const uint32_t o = handle::index_of(op.handle);
  if (handle::kind_of(op.handle) == handle::kKindBuiltin && handle::kind_of(type.handle) == handle::kKindBuiltin &&
      o < builtin_ops::kOps) [[likely]] {
    const builtin_ops::Kernel k = builtin_ops::kernels[o][static_cast<uint32_t>(type.handle) & 0xff].load(
        std::memory_order_relaxed);
    if (k != nullptr) [[likely]] {
      if (count > 0) k(in, inout, static_cast<size_t>(count));
      return;
    }
  }
  apply_slowly(op, in, inout, count, type);
}

// Operations created at run time (MPI_Op_create / MPI_Op_free).
namespace ops {

MPI_Op create(MPI_User_function* fn, bool commutative);
MPI_Op create(MPI_User_function_c* fn, bool commutative);
// MPI_Op_free: the handle stops being valid; the operation itself lives on
// while something retains it. Fails for predefined and unknown handles.
Err free(MPI_Op handle);
// A nonblocking operation that keeps an Op past its call (MPI-3.1 §5.9.5:
// freeing an op does not affect operations already using it) retains it
// and releases it when done. No-ops on predefined operations.
void retain(const Op& op);
void release(const Op& op);
bool is_predefined(const Op& op);

}  // namespace ops

}  // namespace ferry
