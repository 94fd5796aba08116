// Broadcast down a binomial tree.
//
// Chosen for short messages and small communicators, where latency rules:
// every rank receives once and the message reaches all ranks in
// ceil(log2 p) steps. The tree is rooted at `root` by numbering ranks
// relative to it; the parent of relative rank v is v with its lowest set bit
// cleared, so any p works.
//
// Cost = ceil(log2 p) * (alpha + n * beta).
#include "coll/bcast/algorithms.h"

namespace ferry::coll {

void bcast_binomial(Schedule& s, void* buf, MPI_Count count, const Datatype* type, int root) {
  const int p = s.size();
  const int rel = (s.rank() - root + p) % p;

  // Phase 1: receive the message from the parent (every rank but the root).
  int mask = 1;
  for (; mask < p; mask <<= 1) {
    if (rel & mask) {
      s.recv(buf, count, type, (rel - mask + root) % p);
      s.end_round();
      break;
    }
  }

  // Phase 2: pass it to the children rel + mask/2, rel + mask/4, ..., the
  // largest subtree first so that the deepest path starts earliest.
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < p) s.send(buf, count, type, (rel + mask + root) % p);
  s.end_round();
}

}  // namespace ferry::coll
