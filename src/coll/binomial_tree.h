// The binomial tree that gather and scatter share, rooted anywhere.
//
// Ranks are numbered relative to the root (v = rank - root mod p). The
// subtree of v is the run of relative ranks [v, v + lowbit(v)), clipped to
// p (the root's is everything); its children are v + m for m = 1, 2, 4...
// below lowbit(v), and child v + m owns the run [v + m, v + 2m). Gather
// moves each subtree's blocks up as one message, scatter moves them down.
#pragma once

#include <algorithm>

namespace ferry::coll {

struct BinomialTree {
  int p;
  int rel;  // this rank, relative to the root

  BinomialTree(int rank, int root, int size) : p(size), rel((rank - root + size) % size) {}

  // Relative ranks in this rank's subtree (itself included).
  int subtree() const {
    int low = rel == 0 ? p : (rel & -rel);
    return std::min(low, p - rel);
  }
  // The parent's relative rank (the root has none).
  int parent() const { return rel & (rel - 1); }
  // Children are rel + m for each m in [1, limit) that is a power of two
  // with rel + m < p; child rel + m's subtree is [rel + m, rel + m + run(m)).
  int child_limit() const { return rel == 0 ? p : (rel & -rel); }
  int run(int m) const { return std::min(m, p - (rel + m)); }
};

}  // namespace ferry::coll
