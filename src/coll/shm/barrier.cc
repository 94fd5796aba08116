// Barrier through flags: every rank stores its arrival and waits for
// everyone's. One flag store and n-1 flag loads per rank, one hop of
// latency (a gather to a root and a release would be two).
#include "coll/shm/algorithms.h"

namespace ferry::coll::shm {

Err barrier(CommSegment& seg) {
  const uint64_t s = seg.next();
  // A barrier reads no cell, so arriving is also leaving (segment.h).
  seg.publish_and_leave(s);
  for (int r = 0; r < seg.size(); ++r)
    if (r != seg.rank())
      if (Err e = seg.wait_flag(r, s)) return e;
  return {};
}

}  // namespace ferry::coll::shm
