// Scatter's and alltoall's cell (scatter.cc, and their started forms in
// started.cc): a sender's cell holds one packed block per other rank, back
// to back in rank order, its own left out; each rank unpacks its own block.
#pragma once

#include <cstddef>

#include "coll/shm/agreement.h"
#include "coll/shm/cells.h"
#include "coll/typed_buffer.h"

namespace ferry::coll::shm {

// The bytes of a sender's cell for blocks of `block` bytes: one per other
// rank. The sender's own block is not packed: nobody reads it there (the
// caller copies it straight across, or leaves it in place), so a scatter's
// root on 2 ranks packs one block, and up to CommSegment::kSlotData bytes
// of it go in its slot, not a cell (issue 29: a 512-byte scatter on 2
// ranks, 1 KiB with the root's place kept, took a cell). Writers pass it
// to wait_cell_free, writers and readers to cell().
inline size_t blocks_bytes(const CommSegment& seg, size_t block) {
  return block * static_cast<size_t>(seg.size() - 1);
}

// Where rank `to`'s block is in sender `from`'s cell.
inline size_t block_offset(int from, int to, size_t block) {
  return static_cast<size_t>(to < from ? to : to - 1) * block;
}

// The blocks of `buf` (blocks of `count` elements of `type`) for the other
// ranks into my slot or cell (the caller waited for wait_cell_free with
// blocks_bytes), then my record of the block size, which tells the readers
// they are there.
inline Err pack_blocks(CommSegment& seg, uint64_t s, const void* buf, MPI_Count count, const Datatype* type) {
  const size_t block = type->bytes(count);
  char* cell = seg.cell(seg.rank(), s, blocks_bytes(seg, block));
  for (int r = 0; r < seg.size(); ++r) {
    if (r == seg.rank()) continue;
    const void* from = element(const_cast<void*>(buf), static_cast<size_t>(r) * static_cast<size_t>(count), type);
    if (Err e = to_cell(from, count, type, cell + block_offset(seg.rank(), r, block))) return e;
  }
  seg.record_data(s, block);
  return {};
}

// Where my block of `block` bytes is in rank `from`'s slot or cell of s.
inline const char* my_block_in(const CommSegment& seg, uint64_t s, int from, size_t block) {
  return seg.cell(from, s, blocks_bytes(seg, block)) + block_offset(from, seg.rank(), block);
}

// My block out of rank `from`'s cell, once its record agrees with my size.
inline Err my_block(CommSegment& seg, uint64_t s, int from, void* recvbuf, MPI_Count count, const Datatype* type) {
  const size_t block = type->bytes(count);
  if (Err e = check(seg, from, s, block)) return e;
  return from_cell(my_block_in(seg, s, from, block), block, recvbuf, count, type);
}

}  // namespace ferry::coll::shm
