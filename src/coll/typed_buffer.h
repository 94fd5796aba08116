// Typed buffers inside collective schedules: where element i of a buffer
// starts, how a count splits into blocks, and scratch buffers laid out like
// the user's (so reductions and user functions see the same layout).
#pragma once

#include <algorithm>
#include <cstddef>

#include "coll/schedule.h"
#include "base/datatype.h"

namespace ferry::coll {

// The start of element `index` of a buffer of `type` (MPI-3.1 §4.1: element
// i lies i extents after the buffer).
inline char* element(void* buf, size_t index, const Datatype* type) {
  return static_cast<char*>(buf) + static_cast<ptrdiff_t>(index) * type->extent;
}
inline const char* element(const void* buf, size_t index, const Datatype* type) {
  return static_cast<const char*>(buf) + static_cast<ptrdiff_t>(index) * type->extent;
}

// A scratch buffer for `count` elements of `type`, owned by the schedule,
// returned as the pointer a user would pass: element i's data lies where it
// would in the user's buffer, so reductions and user functions see the same
// layout. Sized by true extent (MPI-3.1 §4.1.8), so a type whose data sits
// far from its origin costs no more than its data span.
inline void* temp_buffer(Schedule& s, size_t count, const Datatype* type) {
  const size_t extent = static_cast<size_t>(type->extent < 0 ? -type->extent : type->extent);
  const size_t span = std::max(static_cast<size_t>(type->true_extent > 0 ? type->true_extent : 0), type->size);
  if (count == 0) return s.scratch(0);
  char* base = static_cast<char*>(s.scratch((count - 1) * extent + span));
  // The lowest byte of data goes at base: element 0's, or element
  // count-1's for a negative extent.
  ptrdiff_t first = type->true_lb - (type->extent < 0 ? static_cast<ptrdiff_t>((count - 1) * extent) : 0);
  return base - first;
}

// `count` elements split into `parts` nearly equal blocks, the first
// count % parts one element larger: block i is [start(i), start(i) + size(i)).
struct Blocks {
  size_t count;
  size_t parts;
  size_t size(size_t i) const { return count / parts + (i < count % parts ? 1 : 0); }
  size_t start(size_t i) const { return count / parts * i + std::min(i, count % parts); }
};

// `count` elements of `type` in blocks of whole elements of about `bytes`
// each (nearly equal), at least one: the segments of a pipelined algorithm.
inline Blocks blocks_of_about(MPI_Count count, const Datatype* type, size_t bytes) {
  const size_t n = static_cast<size_t>(count);
  if (type->size == 0) return {n, 1};
  const size_t each = std::max<size_t>(1, bytes / type->size);
  return {n, std::max<size_t>(1, (n + each - 1) / each)};
}

// A round of its own that copies a reduction's input into the buffer where
// the algorithm accumulates (nothing for MPI_IN_PLACE: it is there already).
inline void copy_input(Schedule& s, const void* sendbuf, void* acc, MPI_Count count, const Datatype* type) {
  if (sendbuf == MPI_IN_PLACE || sendbuf == acc) return;
  s.copy(sendbuf, count, type, acc, count, type);
  s.end_round();
}

// The largest power of two not above n (n >= 1).
inline int power_of_two_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace ferry::coll
