// Broadcast down a chain, cut into segments that flow as a pipeline.
//
// Chosen for very long messages: each link carries the message once and all
// links are busy at the same time, so the time approaches n * beta however
// many ranks there are. The chain runs root, root+1, ..., root-1; each rank
// receives segment k while it forwards segment k-1. Any p works.
//
// Cost = (p - 2 + ceil(n/S)) * (alpha + S * beta), S the segment size
// (bcast_chain_segment: about n/16, so ~ (p + 14) * alpha + (1 + p/16) * n * beta).
#include <algorithm>

#include "coll/bcast/algorithms.h"
#include "coll/bcast/packed.h"
#include "coll/select.h"

namespace ferry::coll {

size_t bcast_chain_segment(size_t bytes) {
  return std::max(pipeline_segment_bytes(), std::min<size_t>(bytes / 16, 1024 * 1024));
}

void bcast_pipelined_chain(Schedule& s, void* buf, MPI_Count count, const Datatype* type, int root,
                           size_t segment_bytes) {
  const int p = s.size();
  const int rank = s.rank();
  const int rel = (rank - root + p) % p;
  const PackedBcast m = start_packed_bcast(s, buf, count, type, rel == 0);
  const size_t segment = std::max<size_t>(segment_bytes, 1);
  // At least one (possibly empty) segment, so that every link is used once
  // even for an empty message and a count mismatch shows as truncation.
  const size_t segments = std::max<size_t>(1, (m.bytes + segment - 1) / segment);
  auto bytes_of = [&](size_t k) { return static_cast<MPI_Count>(std::min(segment, m.bytes - k * segment)); };
  const int prev = (rank - 1 + p) % p, next = (rank + 1) % p;
  const bool has_next = rel + 1 < p;

  if (rel == 0) {
    // Phase 1 (root): feed the chain one segment per round.
    for (size_t k = 0; has_next && k < segments; ++k) {
      s.send(m.data + k * segment, bytes_of(k), packed_bytes(), next);
      s.end_round();
    }
  } else {
    // Phase 2 (others): round k receives segment k and forwards segment
    // k - 1, which arrived in the previous round.
    for (size_t k = 0; k <= segments; ++k) {
      if (k < segments) s.recv(m.data + k * segment, bytes_of(k), packed_bytes(), prev);
      if (has_next && k > 0) s.send(m.data + (k - 1) * segment, bytes_of(k - 1), packed_bytes(), next);
      s.end_round();
    }
  }

  finish_packed_bcast(s, m, buf, count, type, rel == 0);
}

}  // namespace ferry::coll
