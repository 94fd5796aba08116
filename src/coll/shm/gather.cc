// Gather and allgather through every rank's cell: each rank packs its
// block into its own cell and raises its flag; the root (gather) or every
// rank (allgather) unpacks each block as its flag comes up, its own block
// copied straight from the send buffer.
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/cells.h"
#include "coll/shm/stream.h"
#include "coll/typed_buffer.h"

#include <algorithm>

namespace ferry::coll::shm {
namespace {

// Blocks of the other ranks into recvbuf, in rank order. `recorded`: I
// have recorded operation s already (allgather: before publishing).
Err collect(CommSegment& seg, uint64_t s, void* recvbuf, MPI_Count recvcount, const Datatype* recvtype,
            bool recorded) {
  Err first;
  const size_t want = recvtype->bytes(recvcount);
  for (int r = 0; r < seg.size(); ++r) {
    if (r == seg.rank()) continue;
    if (Err e = seg.wait_arrived(r, s, seg.cell(r, s, want), want)) return e;
    // A gather's root writes no cell: it records once a writer has arrived
    // (segment.h, record()).
    if (!recorded) {
      seg.record(s, want);
      recorded = true;
    }
    Err e = check(seg, r, s, want);
    if (e.ok())
      e = from_cell(seg.cell(r, s, want), want,
                    element(recvbuf, static_cast<size_t>(r) * static_cast<size_t>(recvcount), recvtype), recvcount,
                    recvtype);
    if (!e.ok() && first.ok()) first = std::move(e);
  }
  return first;
}

// My own block, unless it is in place.
Err own_block(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
              MPI_Count recvcount, const Datatype* recvtype) {
  if (sendbuf == MPI_IN_PLACE) return {};
  return copy_typed(sendbuf, sendcount, *sendtype,
                    element(recvbuf, static_cast<size_t>(seg.rank()) * static_cast<size_t>(recvcount), recvtype),
                    recvcount, *recvtype);
}

// Gather beyond a cell (where gather_streams says, algorithms.h): every
// other rank streams its block through its own kCells cells, chunk j in
// cell j % kCells, and the root takes them in rounds, round j being chunk
// j of each rank in rank order, and counts its rounds (segment.h,
// count_chunks). A rank fills chunk j once the root has counted round
// j - kCells, so that the ranks' copies in and the root's copies out
// overlap. One operation number whatever the size, as bcast.cc's stream:
// the root skips a rank whose record shows another size (and fails), and
// its leaving releases the ranks that wait on its rounds. The ranks'
// side is stream.h's write_stream.
Err root_in_chunks(CommSegment& seg, uint64_t s, void* recvbuf, MPI_Count recvcount, const Datatype* recvtype) {
  const size_t bytes = recvtype->bytes(recvcount);
  const size_t chunk = seg.chunk_bytes();
  const uint64_t chunks = chunks_of(seg, bytes);
  Err first;
  bool recorded = false;
  for (uint64_t j = 0; j < chunks; ++j) {
    for (int r = 0; r < seg.size(); ++r) {
      if (r == seg.rank()) continue;
      const char* cell = nullptr;
      if (Err e = chunk_of_round(seg, s, r, j, bytes, &recorded, &first, &cell)) return e;
      if (cell == nullptr) continue;
      const uint64_t from = j * chunk;
      from_cell_range(cell, from, std::min<size_t>(chunk, bytes - from),
                      element(recvbuf, static_cast<size_t>(r) * static_cast<size_t>(recvcount), recvtype), recvcount,
                      recvtype);
    }
    seg.count_chunks(s, j + 1);
  }
  return first;
}

}  // namespace

Err gather(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
           MPI_Count recvcount, const Datatype* recvtype, int root) {
  const uint64_t s = seg.next();
  if (seg.rank() != root) {
    const size_t bytes = sendtype->bytes(sendcount);
    if (bytes > seg.cell_bytes()) return write_stream(seg, s, sendbuf, sendcount, sendtype, bytes, root);
    if (Err e = seg.wait_cell_free(s, bytes)) return e;
    Err e = to_cell(sendbuf, sendcount, sendtype, seg.cell(seg.rank(), s, bytes));
    seg.record_data(s, bytes);
    seg.publish_and_leave(s);
    return e;
  }
  Err e = own_block(seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  Err rest = recvtype->bytes(recvcount) > seg.cell_bytes() ? root_in_chunks(seg, s, recvbuf, recvcount, recvtype)
                                                           : collect(seg, s, recvbuf, recvcount, recvtype, false);
  seg.leave(s);
  return e.ok() ? std::move(rest) : std::move(e);
}

Err allgather(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
              MPI_Count recvcount, const Datatype* recvtype) {
  const uint64_t s = seg.next();
  // In place, my block is already in recvbuf (MPI-3.1 §5.7).
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* mine =
      in_place ? element(recvbuf, static_cast<size_t>(seg.rank()) * static_cast<size_t>(recvcount), recvtype) : sendbuf;
  MPI_Count n = in_place ? recvcount : sendcount;
  const Datatype* t = in_place ? recvtype : sendtype;
  const size_t bytes = t->bytes(n);
  if (Err e = seg.wait_cell_free(s, bytes)) return e;
  Err e = to_cell(mine, n, t, seg.cell(seg.rank(), s, bytes));
  seg.record_data(s, bytes);
  seg.publish(s);
  Err own = own_block(seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  Err rest = collect(seg, s, recvbuf, recvcount, recvtype, true);
  seg.leave(s);
  if (!e.ok()) return e;
  return own.ok() ? std::move(rest) : std::move(own);
}

}  // namespace ferry::coll::shm
