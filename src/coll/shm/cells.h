// Moving a typed buffer into and out of a shared-memory cell (coll/shm):
// the cell holds the data packed (contiguous types: the bytes themselves,
// one memcpy; others through the datatype engine, base/type_pack.h).
#pragma once

#include <cstring>

#include "base/datatype.h"
#include "coll/packed_bytes.h"

namespace ferry::coll::shm {

inline Err to_cell(const void* buf, MPI_Count count, const Datatype* type, char* cell) {
  const size_t bytes = type->bytes(count);
  if (type->contiguous) {
    if (bytes != 0) std::memcpy(cell, buf, bytes);
    return {};
  }
  return copy_typed(buf, count, *type, cell, static_cast<MPI_Count>(bytes), *packed_bytes());
}

// `bytes` packed bytes into `count` elements of `type`; more bytes than
// the buffer holds is MPI_ERR_TRUNCATE (as a message would be).
inline Err from_cell(const char* cell, size_t bytes, void* buf, MPI_Count count, const Datatype* type) {
  if (type->contiguous && bytes <= type->bytes(count)) {
    if (bytes != 0) std::memcpy(buf, cell, bytes);
    return {};
  }
  return copy_typed(cell, static_cast<MPI_Count>(bytes), *packed_bytes(), buf, count, *type);
}

}  // namespace ferry::coll::shm
