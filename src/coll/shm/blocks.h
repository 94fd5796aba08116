// Scatter's and alltoall's cell (scatter.cc, and their started forms in
// started.cc): a sender's cell holds one packed block per rank, back to
// back, at the rank's place; each rank unpacks its own block.
#pragma once

#include <cstddef>

#include "coll/shm/agreement.h"
#include "coll/shm/cells.h"
#include "coll/typed_buffer.h"

namespace ferry::coll::shm {

// The blocks of `buf` (blocks of `count` elements of `type`) for the other
// ranks into my slot or cell (the caller waited for wait_cell_free), then
// my record of the block size, which tells the readers they are there. My
// own block is not packed: nobody reads it there (the caller copies it
// straight across, or leaves it in place), so a scatter's root on 2 ranks
// packs one block, not two.
inline Err pack_blocks(CommSegment& seg, uint64_t s, const void* buf, MPI_Count count, const Datatype* type) {
  const size_t block = type->bytes(count);
  char* cell = seg.cell(seg.rank(), s, block * static_cast<size_t>(seg.size()));
  for (int r = 0; r < seg.size(); ++r) {
    if (r == seg.rank()) continue;
    const void* from = element(const_cast<void*>(buf), static_cast<size_t>(r) * static_cast<size_t>(count), type);
    if (Err e = to_cell(from, count, type, cell + static_cast<size_t>(r) * block)) return e;
  }
  seg.record_data(s, block);
  return {};
}

// My block out of rank `from`'s cell, once its record agrees with my size.
inline Err my_block(CommSegment& seg, uint64_t s, int from, void* recvbuf, MPI_Count count, const Datatype* type) {
  const size_t block = type->bytes(count);
  if (Err e = check(seg, from, s, block)) return e;
  return from_cell(seg.cell(from, s, block * static_cast<size_t>(seg.size())) + static_cast<size_t>(seg.rank()) * block,
                   block, recvbuf, count, type);
}

}  // namespace ferry::coll::shm
