// Allreduce by a ring: reduce-scatter around the ring, then allgather around
// it (Patarasuk and Yuan 2009; Gloo's allreduce_ring_chunked).
//
// Chosen for large vectors with commutative operations: it is bandwidth
// optimal, every rank sends 2(p-1)/p.n bytes, each round to its right
// neighbour only, which no other algorithm here matches once n.beta
// dominates. The vector is cut into p blocks; block b is reduced on its way
// around the ring and ends complete on rank b - 1, then travels around once
// more so that everyone has it.
//
// Cost = 2(p-1).alpha + 2n(p-1)/p.beta + n(p-1)/p.gamma
//        (times the segments per block in alpha: see below).
//
// Segments: a block larger than FERRY_COLL_SEGMENT_SIZE travels as several
// messages of at most that size, each its own round, so the scratch space
// is one segment, not a block. (Reduction does not yet overlap the next
// segment's transfer: a Schedule round finishes its messages before its
// local work; so on a latency-bound host fewer, larger segments win.)
//
// Order and bits: block b is combined starting at rank b+1 and wrapping
// around, not in rank order, so the selection table keeps non-commutative
// operations away from it. Each block is reduced once, on one rank, and
// then copied to every other: every rank ends with identical bits. The
// association depends on p and on where block boundaries fall (n and p).
#include <algorithm>

#include "coll/allreduce/algorithms.h"
#include "coll/select.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void allreduce_ring(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                    const Op* op) {
  const int p = s.size();
  const int rank = s.rank();
  const int right = (rank + 1) % p;
  const int left = (rank - 1 + p) % p;
  const Blocks blocks{static_cast<size_t>(count), static_cast<size_t>(p)};
  // Elements per segment: at least one, at most a segment's worth.
  const size_t per_segment = std::max<size_t>(1, pipeline_segment_bytes() / std::max<size_t>(1, type->size));
  const size_t segments = (blocks.size(0) + per_segment - 1) / per_segment;
  // One segment of scratch: a round's reduction finishes before the next
  // round's receive is posted.
  void* in = temp_buffer(s, std::min(per_segment, blocks.size(0)), type);
  auto block_of = [p](int b) { return static_cast<size_t>(((b % p) + p) % p); };
  // Segment j of block b: its first element and its length (0 past the end
  // of a short block).
  auto segment = [&](size_t b, size_t j, size_t* first) {
    size_t begin = std::min(j * per_segment, blocks.size(b));
    *first = blocks.start(b) + begin;
    return static_cast<MPI_Count>(std::min(per_segment, blocks.size(b) - begin));
  };

  // Phase 0: the input into recvbuf, where the blocks are reduced.
  copy_input(s, sendbuf, recvbuf, count, type);

  // Phase 1: reduce-scatter. In step k, rank r passes its partial of block
  // r-k to the right and adds the left neighbour's partial of block r-k-1
  // to its own. After p-1 steps rank r holds block r+1 complete.
  for (int k = 0; k < p - 1; ++k) {
    size_t out_block = block_of(rank - k), in_block = block_of(rank - k - 1);
    for (size_t j = 0; j < segments; ++j) {
      size_t out_first = 0, in_first = 0;
      MPI_Count out_n = segment(out_block, j, &out_first), in_n = segment(in_block, j, &in_first);
      if (in_n > 0) s.recv(in, in_n, type, left);
      if (out_n > 0) s.send(element(recvbuf, out_first, type), out_n, type, right);
      // The left partial covers ranks before this one on the ring: it goes
      // first (any order is fine: the ring only runs commutative ops).
      if (in_n > 0) s.reduce(in, element(recvbuf, in_first, type), in_n, type, op);
      s.end_round();
    }
  }

  // Phase 2: allgather. In step k, rank r passes complete block r+1-k to
  // the right and receives complete block r-k from the left, in place.
  for (int k = 0; k < p - 1; ++k) {
    size_t out_block = block_of(rank + 1 - k), in_block = block_of(rank - k);
    for (size_t j = 0; j < segments; ++j) {
      size_t out_first = 0, in_first = 0;
      MPI_Count out_n = segment(out_block, j, &out_first), in_n = segment(in_block, j, &in_first);
      if (in_n > 0) s.recv(element(recvbuf, in_first, type), in_n, type, left);
      if (out_n > 0) s.send(element(recvbuf, out_first, type), out_n, type, right);
      s.end_round();
    }
  }
}

}  // namespace ferry::coll
