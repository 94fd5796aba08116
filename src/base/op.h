// Reduction operations (MPI-3.1 §5.9): the predefined ones and users'.
//
// Every reduction in Ferry goes through apply(), one interface, so that a
// CUDA kernel can be added behind it later. The predefined kernels are plain
// loops over typed arrays that the compiler vectorises.
#pragma once

#include "base/datatype.h"
#include "base/error.h"
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

// The operation behind a handle, or nullptr.
const Op* find_op(MPI_Op handle);

// Whether `op` may be applied to `type` (MPI-3.1 §5.9.2); if not, the error
// names both ("MPI_SUM is not defined for MPI_FLOAT_INT"). For reductions
// (collectives, MPI_Reduce_local): MPI_REPLACE and MPI_NO_OP are refused,
// they belong to one-sided accumulate (§11.3.4).
Err check_op(const Op& op, const Datatype& type);
// The same for MPI_Accumulate and friends (MPI-3.1 §11.3.4): predefined
// operations only, MPI_REPLACE and MPI_NO_OP included (on any predefined type).
Err check_accumulate_op(const Op& op, const Datatype& type);

// inout[i] = in[i] op inout[i] for `count` elements (the argument order of
// MPI_Reduce_local and of user functions: `in` is the earlier rank's data
// for non-commutative ops). check_op or check_accumulate_op must have
// succeeded. A user's function is called once with the whole count: an
// MPI_User_function_c takes any; an int MPI_User_function is called in
// pieces of at most INT_MAX elements (a reduction is elementwise, so the
// pieces give the same result).
void apply(const Op& op, const void* in, void* inout, MPI_Count count, const Datatype& type);

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
