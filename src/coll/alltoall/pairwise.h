// The pairing of the pairwise-exchange alltoalls: in step i (1 <= i < p)
// a rank sends to one peer and receives from one peer, so that every
// ordered pair meets exactly once. On a power of two the peers are one and
// the same (rank XOR i), which keeps each step a true exchange; otherwise
// the rank sends to rank + i and receives from rank - i.
#pragma once

namespace ferry::coll {

struct PairwiseStep {
  int to;
  int from;
};

inline PairwiseStep pairwise_step(int rank, int p, int i) {
  if ((p & (p - 1)) == 0) return {rank ^ i, rank ^ i};
  return {(rank + i) % p, (rank - i + p) % p};
}

}  // namespace ferry::coll
