// Reduction operations (MPI-3.1 §5.9): the predefined ones and users'.
//
// Every reduction in Ferry goes through apply(), one interface, so that a
// CUDA kernel can be added behind it later. The predefined kernels are plain
// loops over typed arrays that the compiler vectorises.
#pragma once

#include "core/datatype.h"
#include "core/error.h"
#include "mpi.h"

namespace ferry {

struct Op {
  MPI_Op handle;
  const char* name;  // "MPI_SUM", or "user operation"
  bool commutative;
  MPI_User_function* user_fn = nullptr;  // set for MPI_Op_create'd operations
};

// The operation behind a handle, or nullptr.
const Op* find_op(MPI_Op handle);

// Whether `op` may be applied to `type` (MPI-3.1 §5.9.2); if not, the error
// names both ("MPI_SUM is not defined for MPI_FLOAT_INT").
Err check_op(const Op& op, const Datatype& type);

// inout[i] = in[i] op inout[i] for `count` elements (the argument order of
// MPI_Reduce_local and of user functions: `in` is the earlier rank's data
// for non-commutative ops).
void apply(const Op& op, const void* in, void* inout, int count, const Datatype& type);

}  // namespace ferry
