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
// (in place only: see phase 1) is one segment, not a block. (Reduction does not yet overlap the next
// segment's transfer: a Schedule round finishes its messages before its
// local work; so on a latency-bound host fewer, larger segments win.)
// Without MPI_IN_PLACE a block is cut into at most FERRY_COLL_MAX_SEGMENTS
// segments, larger ones if need be: on GPU buffers each round has a fixed
// cost of 15-50 us (a stream wait, a copy and a kernel, each waited for),
// which 256 KiB segments of a 64 MiB vector paid 256 times
// (docs/performance.md). In place a segment is the scratch too, and keeps
// its FERRY_COLL_SEGMENT_SIZE. Both bounds depend only on the vector's
// size, the ranks and MPI_IN_PLACE (which every rank passes alike), so
// every rank cuts alike without asking where the others' buffers are.
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
  // Elements per segment: at least one, a segment's worth, or more where
  // the block would otherwise be cut into more than the most segments. In
  // place the segment is also the scratch, so it keeps its size there
  // (MPI_IN_PLACE is given on every rank, so every rank cuts alike).
  const bool in_place = sendbuf == MPI_IN_PLACE || sendbuf == recvbuf;
  const size_t max_segments = in_place ? 0 : pipeline_max_segments();
  size_t per_segment = std::max<size_t>(1, pipeline_segment_bytes() / std::max<size_t>(1, type->size));
  if (max_segments > 0) per_segment = std::max(per_segment, (blocks.size(0) + max_segments - 1) / max_segments);
  const size_t segments = (blocks.size(0) + per_segment - 1) / per_segment;
  auto block_of = [p](int b) { return static_cast<size_t>(((b % p) + p) % p); };
  // Segment j of block b: its first element and its length (0 past the end
  // of a short block).
  auto segment = [&](size_t b, size_t j, size_t* first) {
    size_t begin = std::min(j * per_segment, blocks.size(b));
    *first = blocks.start(b) + begin;
    return static_cast<MPI_Count>(std::min(per_segment, blocks.size(b) - begin));
  };

  // Phase 1: reduce-scatter. In step k, rank r passes its partial of block
  // r-k to the right and adds the left neighbour's partial of block r-k-1
  // to its own. After p-1 steps rank r holds block r+1 complete.
  //
  // With a separate send buffer, the block a step reduces has not been
  // touched in recvbuf yet (each rank reduces each block once, then passes
  // it on), so the left partial is received straight into recvbuf and this
  // rank's own input is added to it from sendbuf: no copy of the input into
  // recvbuf, no scratch. (The operands swap sides, which a commutative
  // operation allows; IEEE addition and multiplication give the same bits
  // either way.) In place, the own input is in recvbuf already, so the
  // partial lands in one segment of scratch and is added to it.
  void* in = in_place ? temp_buffer(s, std::min(per_segment, blocks.size(0)), type) : nullptr;
  for (int k = 0; k < p - 1; ++k) {
    size_t out_block = block_of(rank - k), in_block = block_of(rank - k - 1);
    // Step 0 passes this rank's own input on; later steps, the partial the
    // step before left in recvbuf.
    const void* out_from = !in_place && k == 0 ? sendbuf : recvbuf;
    for (size_t j = 0; j < segments; ++j) {
      size_t out_first = 0, in_first = 0;
      MPI_Count out_n = segment(out_block, j, &out_first), in_n = segment(in_block, j, &in_first);
      void* partial = in_place ? in : element(recvbuf, in_first, type);
      if (in_n > 0) s.recv(partial, in_n, type, left);
      if (out_n > 0) s.send(element(out_from, out_first, type), out_n, type, right);
      if (in_n > 0) {
        if (in_place) s.reduce(in, element(recvbuf, in_first, type), in_n, type, op);
        else s.reduce(element(sendbuf, in_first, type), partial, in_n, type, op);
      }
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
