// Packing and unpacking: between `count` elements of a datatype in memory
// and their data as one contiguous run of bytes, in type-map order.
//
// Any byte range of the packed form can be packed or unpacked on its own:
// the walk seeks to `from` by division through the layout's loops (no state
// is kept between calls), so a large message moves in chunks of any size,
// and chunks can be handled as they arrive. The innermost loops copy runs of
// a fixed size in a tight loop, not a call per element.
#pragma once

#include <cstdint>

#include "base/datatype.h"

namespace ferry::type {

// Copies bytes [from, from + bytes) of the packed form of `count` elements
// of `t` at `buf` to `out`. A contiguous type is one memcpy.
void pack(const Datatype& t, const void* buf, uint64_t count, uint64_t from, uint64_t bytes, void* out);
// The reverse: packed bytes [from, from + bytes) from `in` into place.
void unpack(const Datatype& t, void* buf, uint64_t count, uint64_t from, uint64_t bytes, const void* in);

// Where data lies, rather than the data: calls visit.run(address, bytes) for
// each maximal contiguous run of bytes [from, from + bytes) of the packed
// form of `count` elements of `t` whose first element's origin is `base`,
// in type-map order (runs that touch are merged). The same walk as pack's,
// so it costs a call per run, not per element. MPI-IO maps a file view
// through it (`base` the view's displacement, addresses file offsets).
class RunVisitor {
 public:
  virtual void run(uint64_t address, uint64_t bytes) = 0;

 protected:
  ~RunVisitor() = default;
};
void for_each_run(const Datatype& t, uint64_t base, uint64_t count, uint64_t from, uint64_t bytes,
                  RunVisitor& visit);

// Bytes of the packed form of `count` elements.
inline uint64_t packed_bytes(const Datatype& t, uint64_t count) { return t.size * count; }

// A contiguous type with t's size: for sending data already packed from
// `count` elements of `t` as `count` elements of this (a blocking send only:
// it is not registered, so it lives as long as the caller keeps it).
Datatype packed_view(const Datatype& t);

// When `count` elements of `t` at `buf` are one contiguous run of bytes
// (a contiguous type, or one whose data is dense from a non-zero offset),
// the run's first byte; nullptr otherwise.
const char* dense_run(const Datatype& t, const void* buf, uint64_t count);

}  // namespace ferry::type
