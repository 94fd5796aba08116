// Reduce and allreduce through every rank's cell: each rank copies its
// input into its cell and raises its flag; the root (reduce) or every rank
// (allreduce) combines the cells in rank order into its receive buffer,
// x0 op (x1 op (... op x(n-1))), as each flag comes up. Every rank
// combines the same operands in the same order, so allreduce leaves the
// same bits everywhere.
#include <cstring>

#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/cells.h"

namespace ferry::coll::shm {
namespace {

// A rank whose count differs from ours (erroneous) fails the call here,
// and its cell is left out, after every flag has been waited for.
Err combine(CommSegment& seg, uint64_t s, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op) {
  const int last = seg.size() - 1;
  const size_t bytes = type->bytes(count);
  if (Err w = seg.wait_arrived(last, s)) return w;
  Err e = check(seg, last, s, bytes);
  std::memcpy(recvbuf, seg.cell(last, s), bytes);
  for (int r = last - 1; r >= 0; --r) {
    if (Err w = seg.wait_arrived(r, s)) return w;
    if (Err mismatch = check(seg, r, s, bytes)) {
      if (e.ok()) e = std::move(mismatch);
      continue;
    }
    apply(*op, seg.cell(r, s), recvbuf, count, *type);
  }
  return e;
}

// My input into my cell: sendbuf, or recvbuf in place.
Err contribute(CommSegment& seg, uint64_t s, const void* sendbuf, const void* recvbuf, MPI_Count count,
               const Datatype* type) {
  if (Err e = seg.wait_cell_free(s)) return e;
  std::memcpy(seg.cell(seg.rank(), s), sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, type->bytes(count));
  seg.record(s, type->bytes(count));
  return {};
}

}  // namespace

Err reduce(CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
           int root) {
  const uint64_t s = seg.next();
  if (Err e = contribute(seg, s, sendbuf, recvbuf, count, type)) return e;
  if (seg.rank() != root) {
    seg.publish_and_leave(s);
    return {};
  }
  seg.publish(s);
  Err e = combine(seg, s, recvbuf, count, type, op);
  seg.leave(s);
  return e;
}

Err allreduce(CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
              const Op* op) {
  const uint64_t s = seg.next();
  if (Err e = contribute(seg, s, sendbuf, recvbuf, count, type)) return e;
  seg.publish(s);
  Err e = combine(seg, s, recvbuf, count, type, op);
  seg.leave(s);
  return e;
}

}  // namespace ferry::coll::shm
