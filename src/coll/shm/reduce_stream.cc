// Reduce beyond a cell (the blocking form, where reduce_streams says,
// algorithms.h): every rank but the root streams its operand through its
// own cells, up to kCells (stream.h, write_stream, the root its one reader), and
// the root folds them into its receive buffer in rounds, round j being
// chunk j of every rank in fold order (algorithms.h: from rank 0 up), and
// counts its rounds (segment.h, count_chunks), as gather.cc's root takes
// its blocks. A rank fills chunk j once the root has counted round
// j - kCells, so the ranks' copies in overlap the root's folding, where the
// message algorithms move and combine whole halves or segments hop by hop
// (issue 29: 4 ranks on 2 cores, Reduce of 256 KiB 1.65x Open MPI's time).
//
// The cells hold the signature's basic elements (reduce_streams: a
// predefined operation with a kernel for them, and so a datatype of one
// contiguous run, base/op.h), which the kernel reads in place; cells are
// whole cache lines, and so are chunks (CommSegment::chunk_bytes), so a
// chunk never splits an element. One operation
// number whatever the size, as the other streams: the root skips a rank
// whose record shows another size (and fails), and its leaving releases the
// ranks that wait on its rounds.
#include <cstring>

#include "base/op.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/cells.h"
#include "coll/shm/stream.h"

namespace ferry::coll::shm {
namespace {

Err root_folds_chunks(CommSegment& seg, uint64_t s, const void* sendbuf, void* recvbuf, MPI_Count count,
                      const Datatype* type, const Op* op) {
  const int me = seg.rank();
  const size_t bytes = type->bytes(count);
  const size_t chunk = seg.chunk_bytes();
  const uint64_t chunks = chunks_of(seg, bytes);
  const Datatype* basic = find_datatype(type->single_basic());
  const bool in_place = sendbuf == MPI_IN_PLACE;
  // In place at a root after rank 0, rank 0's chunk overwrites the root's
  // own operand in recvbuf before the fold reaches it: the root keeps its
  // chunk in its own cell first (free once every rank has left s - 1).
  const bool own_in_cell = in_place && me != 0;
  if (own_in_cell)
    if (Err e = seg.wait_all_left(s - 1)) return e;
  const FoldOrder order = fold_order(*op, seg.size() - 1);
  Err first_error;
  bool recorded = false;
  for (uint64_t j = 0; j < chunks; ++j) {
    const uint64_t from = j * chunk;
    const size_t n = std::min<size_t>(chunk, bytes - from);
    char* acc = static_cast<char*>(recvbuf) + from;
    if (own_in_cell) copy_to_shared(seg.chunk_cell(me, j), acc, n);
    bool first = true;
    for (int r = order.first; r != order.end; r += order.step) {
      const char* operand;
      if (r == me) {
        operand = !in_place ? static_cast<const char*>(sendbuf) + from : own_in_cell ? seg.chunk_cell(me, j) : acc;
      } else {
        if (Err e = chunk_of_round(seg, s, r, j, bytes, &recorded, &first_error, &operand)) return e;
        if (operand == nullptr) continue;
      }
      if (first) {
        if (operand != acc) std::memcpy(acc, operand, n);
        first = false;
      } else {
        apply(*op, operand, acc, static_cast<MPI_Count>(n / basic->size), *basic);
      }
    }
    seg.count_chunks(s, j + 1);
  }
  return first_error;
}

}  // namespace

Err reduce_in_chunks(CommSegment& seg, uint64_t s, const void* sendbuf, void* recvbuf, MPI_Count count,
                     const Datatype* type, const Op* op, int root) {
  if (seg.rank() != root) return write_stream(seg, s, sendbuf, count, type, type->bytes(count), root);
  Err e = root_folds_chunks(seg, s, sendbuf, recvbuf, count, type, op);
  seg.leave(s);
  return e;
}

}  // namespace ferry::coll::shm
