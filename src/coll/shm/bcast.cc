// Bcast through the root's slot or cell: the root packs the message there
// and records it; every other rank waits for that record and unpacks. The
// root leaves at once, and may run up to kRing - 1 small operations (one
// beyond a slot: kCells - 1) ahead of its slowest reader (segment.h).
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/cells.h"

namespace ferry::coll::shm {

Err bcast(CommSegment& seg, void* buf, MPI_Count count, const Datatype* type, int root) {
  const uint64_t s = seg.next();
  const size_t bytes = type->bytes(count);
  if (seg.rank() == root) {
    if (Err e = seg.wait_cell_free(s, bytes)) return e;
    Err e = to_cell(buf, count, type, seg.cell(root, s, bytes));
    seg.record_data(s, bytes);
    seg.publish_and_leave(s);
    return e;
  }
  if (Err e = seg.wait_arrived(root, s)) return e;
  seg.record(s, bytes);
  Err e = check(seg, root, s, bytes);
  if (e.ok()) e = from_cell(seg.cell(root, s, bytes), bytes, buf, count, type);
  seg.leave(s);
  return e;
}

}  // namespace ferry::coll::shm
