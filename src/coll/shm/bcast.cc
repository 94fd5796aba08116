// Bcast through the root's cell: the root packs the message into its cell
// and raises its flag; every other rank waits for that flag and unpacks.
// The root leaves at once, and may run one operation ahead of its slowest
// reader (two slots, segment.h).
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/cells.h"

namespace ferry::coll::shm {

Err bcast(CommSegment& seg, void* buf, MPI_Count count, const Datatype* type, int root) {
  const uint64_t s = seg.next();
  if (seg.rank() == root) {
    if (Err e = seg.wait_cell_free(s)) return e;
    Err e = to_cell(buf, count, type, seg.cell(root, s));
    seg.record(s, type->bytes(count));
    seg.publish_and_leave(s);
    return e;
  }
  if (Err e = seg.wait_arrived(root, s)) return e;
  const size_t want = type->bytes(count);
  seg.record(s, want);
  Err e = check(seg, root, s, want);
  if (e.ok()) e = from_cell(seg.cell(root, s), want, buf, count, type);
  seg.leave(s);
  return e;
}

}  // namespace ferry::coll::shm
