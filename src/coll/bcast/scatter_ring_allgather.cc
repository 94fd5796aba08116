// Broadcast as a scatter followed by a ring allgather (van de Geijn; Barnett
// et al. 1994; MPICH's bcast_intra_scatter_ring_allgather).
//
// Chosen for long messages: the root's link carries the message about twice
// instead of log2 p times. The message (packed, n bytes) is cut into p
// blocks of ceil(n/p) bytes, block v belonging to relative rank v; blocks
// past the end are short or empty, and empty ones are not sent, so any n
// and any p work.
//
// Cost = (ceil(log2 p) + p - 1) * alpha + 2 * (p-1)/p * n * beta.
#include <algorithm>

#include "coll/bcast/algorithms.h"
#include "coll/bcast/packed.h"

namespace ferry::coll {

void bcast_scatter_ring_allgather(Schedule& s, void* buf, MPI_Count count, const Datatype* type, int root) {
  const int p = s.size();
  const int rank = s.rank();
  const int rel = (rank - root + p) % p;
  const PackedBcast m = start_packed_bcast(s, buf, count, type, rel == 0);
  const size_t chunk = (m.bytes + p - 1) / static_cast<size_t>(p);
  // Blocks [first, first + n) of the message, clipped to its end.
  auto send_blocks = [&](int first, int n, int to) {
    size_t begin = std::min(m.bytes, static_cast<size_t>(first) * chunk);
    size_t end = std::min(m.bytes, static_cast<size_t>(std::min(first + n, p)) * chunk);
    if (end > begin) s.send(m.data + begin, static_cast<MPI_Count>(end - begin), packed_bytes(), to);
  };
  auto recv_blocks = [&](int first, int n, int from) {
    size_t begin = std::min(m.bytes, static_cast<size_t>(first) * chunk);
    size_t end = std::min(m.bytes, static_cast<size_t>(std::min(first + n, p)) * chunk);
    if (end > begin) s.recv(m.data + begin, static_cast<MPI_Count>(end - begin), packed_bytes(), from);
  };

  // Phase 1: binomial scatter. Relative rank v receives from its parent the
  // blocks of its whole subtree, [v, v + lowbit(v)), and hands each child
  // v + k the blocks [v + k, v + 2k).
  int mask = 1;
  for (; mask < p; mask <<= 1) {
    if (rel & mask) {
      recv_blocks(rel, mask, (rank - mask + p) % p);
      s.end_round();
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < p) send_blocks(rel + mask, mask, (rank + mask) % p);
  s.end_round();

  // Phase 2: ring allgather. In step i each rank passes block rel - i to
  // the right and receives block rel - i - 1 from the left; after p - 1
  // steps every rank has every block. The root has them all already: it
  // only sends, and nobody sends to it (its buffer is never written).
  const int left = (rank - 1 + p) % p, right = (rank + 1) % p;
  for (int i = 0; i < p - 1; ++i) {
    if (rel != 0) recv_blocks((rel - i - 1 + 2 * p) % p, 1, left);
    if (rel != p - 1) send_blocks((rel - i + p) % p, 1, right);
    s.end_round();
  }

  finish_packed_bcast(s, m, buf, count, type, rel == 0);
}

}  // namespace ferry::coll
