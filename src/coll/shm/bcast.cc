// Bcast through the root's slot or cell: the root packs the message there
// and records it; every other rank waits for that record and unpacks. The
// root leaves at once, and may run up to ring() - 1 small operations (one
// beyond a slot: kCells - 1) ahead of its slowest reader (segment.h).
//
// A message larger than a cell (the blocking form only, where
// bcast_streams says, algorithms.h) streams through all of the root's
// kCells cells within the one operation, in chunks (CommSegment::chunk_bytes,
// a cell of at most 64 KiB, at the start of its cell): the root
// fills chunk j once every reader has taken chunk j - kCells from the same
// cell, and the readers copy each chunk out as soon as it is counted
// (segment.h, count_chunks), so that the root's copy in and the readers'
// copies out overlap (issue 29: 4 ranks on 2 cores, 128 KiB-4 MiB, half
// the time of the message schedules; docs/performance.md). The operation
// keeps one number whatever its size, so that ranks that disagree on the
// size stay in step: a reader that finds another size recorded fails as
// below, and its leaving stands for all its chunks. The root returns once
// every rank has left (its cells are free for its next operation, which
// does not look at chunks).
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/cells.h"
#include "coll/shm/stream.h"

namespace ferry::coll::shm {
namespace {

Err reader_in_chunks(CommSegment& seg, void* buf, MPI_Count count, const Datatype* type, int root, uint64_t s,
                     size_t bytes) {
  const size_t chunk = seg.chunk_bytes();
  const uint64_t chunks = chunks_of(seg, bytes);
  for (uint64_t j = 0; j < chunks; ++j) {
    if (Err e = seg.wait_chunks(root, s, j + 1)) return e;
    const uint64_t from = j * chunk;
    from_cell_range(seg.chunk_cell(root, j), from, std::min<size_t>(chunk, bytes - from), buf, count, type);
    seg.count_chunks(s, j + 1);
  }
  return {};
}

}  // namespace

Err bcast(CommSegment& seg, void* buf, MPI_Count count, const Datatype* type, int root) {
  const uint64_t s = seg.next();
  const size_t bytes = type->bytes(count);
  const bool chunked = bytes > seg.cell_bytes();
  if (seg.rank() == root) {
    if (chunked) return write_stream(seg, s, buf, count, type, bytes, -1);
    if (Err e = seg.wait_cell_free(s, bytes)) return e;
    Err e = to_cell(buf, count, type, seg.cell(root, s, bytes));
    seg.record_data(s, bytes);
    seg.publish_and_leave(s);
    return e;
  }
  if (Err e = seg.wait_arrived(root, s, seg.cell(root, s, bytes), bytes)) return e;
  if (chunked) seg.start_chunks(s);
  seg.record(s, bytes);
  Err e = check(seg, root, s, bytes);
  if (e.ok()) {
    if (chunked) {
      if (Err c = reader_in_chunks(seg, buf, count, type, root, s, bytes)) return c;
    } else {
      e = from_cell(seg.cell(root, s, bytes), bytes, buf, count, type);
    }
  }
  seg.leave(s);
  return e;
}

}  // namespace ferry::coll::shm
