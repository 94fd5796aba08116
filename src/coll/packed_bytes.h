// Packed scratch data for the data-movement algorithms (bcast, gather,
// scatter, allgather, alltoall).
//
// User buffers are addressed through their datatype (coll/typed_buffer.h);
// an algorithm that must cut a message at any byte, or gather blocks out of
// order, packs them into scratch as MPI_BYTE: copy_typed (or
// Schedule::copy) from the user's type to bytes and back, and
// point-to-point moves bytes on the wire whatever the sender's type.
#pragma once

#include "base/datatype.h"
#include "mpi.h"

namespace ferry::coll {

// MPI_BYTE, the type of packed scratch data.
inline const Datatype* packed_bytes() {
  static const Datatype* bytes = find_datatype(MPI_BYTE);
  return bytes;
}

}  // namespace ferry::coll
