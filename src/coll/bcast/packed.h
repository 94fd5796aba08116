// The broadcast message as one run of bytes, for the algorithms that cut it
// into pieces (scatter + allgather, pipelined chain).
#pragma once

#include <cstddef>

#include "coll/packed_bytes.h"
#include "coll/schedule.h"

namespace ferry::coll {

// A contiguous type is cut in place; any other is packed into scratch
// first (at the root) and unpacked at the end (elsewhere) by
// finish_packed_bcast.
struct PackedBcast {
  char* data;
  size_t bytes;
};

inline PackedBcast start_packed_bcast(Schedule& s, void* buf, MPI_Count count, const Datatype* type, bool is_root) {
  size_t bytes = type->bytes(count);
  if (type->contiguous) return {static_cast<char*>(buf), bytes};
  char* data = static_cast<char*>(s.scratch(bytes));
  if (is_root) {
    s.copy(buf, count, type, data, static_cast<MPI_Count>(bytes), packed_bytes());
    s.end_round();
  }
  return {data, bytes};
}

inline void finish_packed_bcast(Schedule& s, const PackedBcast& m, void* buf, MPI_Count count, const Datatype* type,
                                bool is_root) {
  if (type->contiguous || is_root) return;
  s.copy(m.data, static_cast<MPI_Count>(m.bytes), packed_bytes(), buf, count, type);
  s.end_round();
}

}  // namespace ferry::coll
