// Reductions through every rank's cell: each rank copies its input into
// its cell and raises its flag; then whoever needs a result combines the
// cells in rank order into its receive buffer (fold_order, algorithms.h:
// ((x0 op x1) op x2) ... for a commutative operation, else x0 op (x1 op
// (... op xk))), as each flag comes up: the root over all (reduce), every rank over all
// (allreduce: the same operands in the same order everywhere, so the same
// bits), rank r over ranks 0..r (scan) or 0..r-1 (exscan), rank r over
// block r of every cell (reduce_scatter: each cell holds a rank's whole
// input). Non-commutative operations are applied in rank order, as MPI-3.1
// §5.9.1 requires. A reduce or scan beyond a cell goes on in
// reduce_stream.cc and scan_stream.cc (where algorithms.h says it streams).
#include <cstring>

#include "base/reduce_kernels.h"
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/cells.h"
#include "coll/shm/stream.h"

namespace ferry::coll::shm {
namespace {

// Whether x op y and y op x have the same bits for all x and y: a sum
// (IEEE addition commutes; complex sums add parts), or any predefined
// operation on integers, logicals or bytes; not MIN or MAX of floating
// point (-0.0 against +0.0), products (complex ones under FMA), nor
// users' operations. (Two NaNs of different payloads aside.)
bool symmetric(const Op& op, const Datatype& type) {
  if (op.user()) return false;
  if (op.handle == MPI_SUM) return true;
  return reduce::exact_in_any_order(type.single_basic());
}

// combine() where `type` has gaps (cells.h): each operand unpacked first.
Err combine_unpacking(CommSegment& seg, uint64_t s, int last, size_t offset, size_t recorded, void* recvbuf,
                      MPI_Count count, const Datatype* type, const Op* op, const void* mine) {
  const FoldOrder order = fold_order(*op, last);
  Err e;
  for (int r = order.first; r != order.end; r += order.step) {
    const bool first = r == order.first;
    if (mine != MPI_IN_PLACE && r == seg.rank()) {
      if (!first) apply(*op, mine, recvbuf, count, *type);
      else if (Err c = copy_elements(mine, recvbuf, count, type); c && e.ok()) e = std::move(c);
      continue;
    }
    if (Err w = seg.wait_arrived(r, s)) return w;
    if (Err mismatch = check(seg, r, s, recorded)) {
      if (e.ok()) e = std::move(mismatch);
      continue;
    }
    const char* cell = seg.cell(r, s, recorded) + offset;
    const size_t bytes = type->bytes(count);
    if (!first) apply(*op, operand_from_cell(cell, bytes, count, type), recvbuf, count, *type);
    else if (Err c = from_cell(cell, bytes, recvbuf, count, type); c && e.ok()) e = std::move(c);
  }
  return e;
}

// Cells 0..last, `count` elements from byte `offset` of each, into
// recvbuf, in fold_order (algorithms.h); each writer recorded `recorded`
// bytes. A rank whose count differs from ours (erroneous) fails the call
// here, and its cell is left out, after every flag has been waited for.
// `mine`, unless MPI_IN_PLACE, is my own operand, read where it is instead
// of from my cell (the reduce's root and a scan's last rank, which wrote
// none; a scan's other ranks), never recvbuf (which the first operand
// overwrites). Not nullptr for "none": MPI_BOTTOM is a user's buffer too
// (a datatype of absolute addresses).
//
// The first operand is copied into recvbuf, the others combined into it
// by the operation's kernel. Where rank 0's own operand would come first
// (the root of a reduce to rank 0) and the operation is symmetric, rank 1's
// comes first instead, the same bits: the kernel then reads the root's own
// buffer, and the other core's lines go by the copy (issue 29: on 2 ranks
// with the kernel reading them, MPI_Reduce of 128-256 B took 0.16-0.21 us
// against 0.12-0.14).
Err combine(CommSegment& seg, uint64_t s, int last, size_t offset, size_t recorded, void* recvbuf, MPI_Count count,
            const Datatype* type, const Op* op, const void* mine = MPI_IN_PLACE) {
  if (!type->contiguous) [[unlikely]]
    return combine_unpacking(seg, s, last, offset, recorded, recvbuf, count, type, op, mine);
  const size_t bytes = type->bytes(count);
  const FoldOrder order = fold_order(*op, last);
  const bool swap = mine != MPI_IN_PLACE && seg.rank() == 0 && order.step == 1 && last >= 1 && symmetric(*op, *type);
  Err e;
  for (int i = 0; i <= last; ++i) {
    const int r = order.step == 1 ? (swap && i < 2 ? 1 - i : i) : last - i;
    const char* operand;
    if (mine != MPI_IN_PLACE && r == seg.rank()) {
      operand = static_cast<const char*>(mine);
    } else {
      operand = seg.cell(r, s, recorded) + offset;
      if (Err w = seg.wait_arrived(r, s, operand, bytes)) return w;
      if (Err mismatch = check(seg, r, s, recorded)) {
        if (e.ok()) e = std::move(mismatch);
        continue;
      }
    }
    if (bytes == 0) continue;
    if (i == 0) std::memcpy(recvbuf, operand, bytes);
    else apply(*op, operand, recvbuf, count, *type);
  }
  return e;
}

// My input into my cell: sendbuf, or recvbuf in place.
Err contribute(CommSegment& seg, uint64_t s, const void* sendbuf, const void* recvbuf, MPI_Count count,
               const Datatype* type) {
  const size_t bytes = type->bytes(count);
  if (Err e = seg.wait_cell_free(s, bytes)) return e;
  // Packing into a cell of exactly its size cannot fail.
  (void)to_cell(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type, seg.cell(seg.rank(), s, bytes));
  seg.record_data(s, bytes);
  return {};
}

}  // namespace

Err reduce(CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
           int root) {
  const uint64_t s = seg.next();
  const size_t bytes = type->bytes(count);
  if (bytes > seg.cell_bytes()) return reduce_in_chunks(seg, s, sendbuf, recvbuf, count, type, op, root);
  if (seg.rank() != root || sendbuf == MPI_IN_PLACE) {
    if (Err e = contribute(seg, s, sendbuf, recvbuf, count, type)) return e;
    if (seg.rank() != root) {
      seg.publish_and_leave(s);
      return {};
    }
    seg.publish(s);
    Err e = combine(seg, s, seg.size() - 1, 0, bytes, recvbuf, count, type, op);
    seg.leave(s);
    return e;
  }
  // The root, not in place: nobody reads its operand, which it combines
  // from sendbuf; it records its bytes (for a rank of an erroneous program
  // that runs the call by message, agreement.h) once nobody reads its slot
  // of s - ring(), and raises its flags once, at the end (issue 29: a copy,
  // a wait and a wake-up less per call).
  if (Err e = seg.wait_cell_free(s, 0)) return e;
  seg.record(s, bytes);
  Err e = combine(seg, s, seg.size() - 1, 0, bytes, recvbuf, count, type, op, sendbuf);
  seg.publish_and_leave(s);
  return e;
}

Err allreduce(CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
              const Op* op) {
  const uint64_t s = seg.next();
  if (Err e = contribute(seg, s, sendbuf, recvbuf, count, type)) return e;
  seg.publish(s);
  Err e = combine(seg, s, seg.size() - 1, 0, type->bytes(count), recvbuf, count, type, op);
  seg.leave(s);
  return e;
}

Err scan(CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
         bool exclusive) {
  const uint64_t s = seg.next();
  const size_t bytes = type->bytes(count);
  if (bytes > seg.cell_bytes()) return scan_in_chunks(seg, s, sendbuf, recvbuf, count, type, op, exclusive);
  // Exscan: rank 0's result is undefined (MPI-3.1 §5.11.2), nothing to
  // combine. A scan's own operand is read where it is, not back out of my
  // cell; in place it is in recvbuf, which the result overwrites from rank
  // 0's operand on (fold_order), so then it is read from my cell.
  const int last = exclusive ? seg.rank() - 1 : seg.rank();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* mine = exclusive || in_place ? MPI_IN_PLACE : sendbuf;
  if (seg.rank() == seg.size() - 1 && (exclusive || !in_place)) {
    // The last rank's input is no other rank's operand: like the reduce's
    // root, it records its bytes without writing its cell, once nobody
    // reads its slot of s - ring(), and raises its flags once, at the end
    // (issue 29: a copy, a wait and a wake-up less on the rank that waits
    // for all the others).
    if (Err e = seg.wait_cell_free(s, 0)) return e;
    seg.record(s, bytes);
    Err e;
    if (!exclusive && op->commutative && last > 0) {
      // The others' operands first (rank 0's copied into recvbuf), then
      // mine, last, as fold_order has it: on 2 ranks the operation's kernel then reads only
      // recvbuf and my own buffer, no line the other core wrote (from 3,
      // the farther cells still go through it). Read by the kernel,
      // a payload that reached the slot's third line (in the layout of
      // then, data right after the header) cost ~50 ns more
      // (2-rank MPI_Scan of 120-192 B: 169-190 ns per call in a loop,
      // 85-107 this way; 112 B 116 -> 88; Exscan, whose last rank copies,
      // showed no such step). Commutative operations only (mine op theirs).
      e = combine(seg, s, last - 1, 0, bytes, recvbuf, count, type, op);
      if (e.ok() && bytes != 0) apply(*op, mine, recvbuf, count, *type);
    } else {
      e = combine(seg, s, last, 0, bytes, recvbuf, count, type, op, mine);
    }
    seg.publish_and_leave(s);
    return e;
  }
  if (Err e = contribute(seg, s, sendbuf, recvbuf, count, type)) return e;
  if (seg.rank() == 0) {
    // Rank 0 reads nobody's cell: its scan is its own input, its exscan
    // undefined. It raises both flags at once, with one wake-up (issue 29:
    // publish and leave woke the others once each, about 70 instructions).
    seg.publish_and_leave(s);
    if (!exclusive && bytes != 0 && !in_place) return copy_elements(sendbuf, recvbuf, count, type);
    return {};
  }
  seg.publish(s);
  Err e = combine(seg, s, last, 0, bytes, recvbuf, count, type, op, mine);
  seg.leave(s);
  return e;
}

Err reduce_scatter(CommSegment& seg, const void* sendbuf, void* recvbuf, CountArray recvcounts, MPI_Count total,
                   const Datatype* type, const Op* op) {
  const uint64_t s = seg.next();
  // In place, the input is in recvbuf (MPI-3.1 §5.10.1); it is in my cell
  // before my block of the result overwrites it.
  if (Err e = contribute(seg, s, sendbuf, recvbuf, total, type)) return e;
  seg.publish(s);
  MPI_Count before = 0;
  for (int r = 0; r < seg.rank(); ++r) before += recvcounts[r];
  Err e = combine(seg, s, seg.size() - 1, type->bytes(before), type->bytes(total), recvbuf, recvcounts[seg.rank()],
                  type, op);
  seg.leave(s);
  return e;
}

}  // namespace ferry::coll::shm
