// Datatypes as the point-to-point path sees them.
//
// This issue has the predefined types only; derived datatypes come with the
// datatype engine. The send and receive paths already go through one
// interface (Datatype::contiguous, pack, unpack) so that the engine slots in
// without touching them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "mpi.h"

namespace ferry {

struct Datatype {
  MPI_Datatype handle;
  const char* name;   // "MPI_INT"
  size_t size;        // bytes of data in one element
  MPI_Aint lb;        // lower bound
  MPI_Aint extent;    // stride between consecutive elements
  bool contiguous;    // one element is `size` bytes at offset 0 and extent == size
  bool supported;     // false: known to MPI, not yet movable by point-to-point

  // Bytes of data in `count` elements.
  size_t bytes(int count) const { return size * static_cast<size_t>(count); }
};

// The datatype behind a handle, or nullptr for an invalid or null handle.
const Datatype* find_datatype(MPI_Datatype handle);

// Copies `scount` elements of `stype` at `src` into `rcount` elements of
// `rtype` at `dst` (a local MPI_Sendrecv: the type signatures must match;
// fails with MPI_ERR_TRUNCATE if the destination is smaller).
Err copy_typed(const void* src, int scount, const Datatype& stype, void* dst, int rcount, const Datatype& rtype);

}  // namespace ferry
