// The target side of every RMA operation, on a list of runs of target
// memory and packed data (MPI-4.0 §12.3): the one place that writes,
// reads and accumulates into window memory, whoever runs it (the origin
// reaching the target directly, or the target's service for an origin on
// another host).
//
// Accumulates are element-wise atomic per basic type (§12.7.1): a few
// elements of 1, 2, 4 or 8 bytes in memory every origin maps are updated
// with a compare-and-swap loop each (any predefined op: the kernel computes
// the new value from the old) under the target's accumulate lock held
// shared; everything else (many elements, wider ones, memory reached by
// cross-memory attach) in one pass under the lock held exclusive
// (rma/control.h). So concurrent accumulates exclude each other whichever
// origin sends them and whichever way each is applied.
#pragma once

#include <cstdint>
#include <span>

#include "base/error.h"
#include "mpi.h"
#include "rma/access.h"

namespace ferry::rma {

enum class OpKind : uint8_t { kPut = 1, kGet, kAccumulate, kGetAccumulate, kCompareAndSwap };

struct TargetOp {
  OpKind kind;
  MPI_Op op = MPI_REPLACE;               // accumulates: a predefined operation
  MPI_Datatype basic = MPI_DATATYPE_NULL;  // accumulates: the element type
  uint64_t basic_size = 0;
  bool exclusive = false;  // the origin holds an exclusive lock: nobody else can be accumulating
};

// `in`: the packed data for put and accumulates (the sum of the runs'
// bytes); `out`: receives the packed old data for get, get_accumulate and
// compare-and-swap. `compare`: compare-and-swap's compare value.
Err apply(const Access& a, const TargetOp& op, std::span<const Run> runs, const char* in, char* out,
          const char* compare = nullptr);

}  // namespace ferry::rma
