// Scatter and alltoall through each sender's cell, which holds one block
// per other rank back to back (blocks.h): the root (scatter) or every rank
// (alltoall) packs its blocks and raises its flag; each rank unpacks its
// own block out of each sender's cell as its flag comes up.
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/blocks.h"
#include "coll/shm/cells.h"
#include "coll/typed_buffer.h"

namespace ferry::coll::shm {

Err scatter(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
            MPI_Count recvcount, const Datatype* recvtype, int root) {
  const uint64_t s = seg.next();
  if (seg.rank() == root) {
    if (Err e = seg.wait_cell_free(s, blocks_bytes(seg, sendtype->bytes(sendcount)))) return e;
    Err e = pack_blocks(seg, s, sendbuf, sendcount, sendtype);
    seg.publish_and_leave(s);
    // In place, the root's block stays where it is (MPI-3.1 §5.6).
    if (e.ok() && recvbuf != MPI_IN_PLACE)
      e = copy_typed(element(sendbuf, static_cast<size_t>(root) * static_cast<size_t>(sendcount), sendtype), sendcount,
                     *sendtype, recvbuf, recvcount, *recvtype);
    return e;
  }
  const size_t bytes = recvtype->bytes(recvcount);
  if (Err e = seg.wait_arrived(root, s, my_block_in(seg, s, root, bytes), bytes)) return e;
  seg.record(s, bytes);
  Err e = my_block(seg, s, root, recvbuf, recvcount, recvtype);
  seg.leave(s);
  return e;
}

Err alltoall(CommSegment& seg, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
             MPI_Count recvcount, const Datatype* recvtype) {
  const uint64_t s = seg.next();
  // In place, the blocks to send are recvbuf's, read before any is replaced.
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const size_t block = in_place ? recvtype->bytes(recvcount) : sendtype->bytes(sendcount);
  if (Err e = seg.wait_cell_free(s, blocks_bytes(seg, block))) return e;
  Err e = in_place ? pack_blocks(seg, s, recvbuf, recvcount, recvtype) : pack_blocks(seg, s, sendbuf, sendcount, sendtype);
  seg.publish(s);
  const int me = seg.rank();
  void* mine = element(recvbuf, static_cast<size_t>(me) * static_cast<size_t>(recvcount), recvtype);
  if (e.ok() && !in_place)
    e = copy_typed(element(sendbuf, static_cast<size_t>(me) * static_cast<size_t>(sendcount), sendtype), sendcount,
                   *sendtype, mine, recvcount, *recvtype);
  const size_t received = recvtype->bytes(recvcount);
  for (int r = 0; r < seg.size(); ++r) {
    if (r == me) continue;
    if (Err w = seg.wait_arrived(r, s, my_block_in(seg, s, r, received), received)) return w;
    Err b = my_block(seg, s, r, element(recvbuf, static_cast<size_t>(r) * static_cast<size_t>(recvcount), recvtype),
                     recvcount, recvtype);
    if (!b.ok() && e.ok()) e = std::move(b);
  }
  seg.leave(s);
  return e;
}

}  // namespace ferry::coll::shm
