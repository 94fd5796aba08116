// Recursive halving and its mirror images: the phases that Rabenseifner's
// algorithms (allreduce, reduce) and the recursive-halving reduce_scatter
// are made of. They run among the pof2 new ranks of a Fold (coll/fold.h).
//
// The vector is seen as pof2 consecutive pieces ("positions"): position i
// holds elements [starts[i], starts[i+1]). Halving runs with the smallest
// distance first: in round k (distance 2^k) a rank keeps the half of its
// current positions that matches bit k of its new rank, so it ends owning
// the single position bit_reverse(newrank), fully reduced. With the
// smallest distance first, a rank's partial always covers an aligned block
// of consecutive new ranks and its partner's the adjacent block, so
// partials are combined lower block first: rank order, safe for
// non-commutative operations.
#pragma once

#include <cstddef>
#include <vector>

#include "coll/fold.h"
#include "coll/schedule.h"

namespace ferry::coll {

// The positions [lo, hi) a rank is responsible for.
struct PositionRange {
  int lo;
  int hi;
};

// Reduce-scatter by recursive halving. `acc` holds this rank's (folded)
// vector; `tmp` is scratch for halving_scratch_count(starts) elements (a
// partner's half arrives there). Returns the position this rank ends
// owning, reduced over all ranks, in `acc`.
// Cost = lg p.alpha + n(p-1)/p.(beta + gamma).
PositionRange halving_reduce_scatter(Schedule& s, const Fold& f, void* acc, void* tmp,
                                     const std::vector<size_t>& starts, const Datatype* type, const Op* op);

// Allgather by recursive doubling, retracing the halving from `owned`: every
// new rank ends with all positions of `acc`.
// Cost = lg p.alpha + n(p-1)/p.beta.
void doubling_allgather(Schedule& s, const Fold& f, void* acc, PositionRange owned,
                        const std::vector<size_t>& starts, const Datatype* type);

// Gather by the same rounds, towards new rank 0 only: new rank 0 ends with
// all positions of `acc`.
// Cost = lg p.alpha + n(p-1)/p.beta.
void doubling_gather(Schedule& s, const Fold& f, void* acc, PositionRange owned, const std::vector<size_t>& starts,
                     const Datatype* type);

// The scratch halving_reduce_scatter needs: the larger half of the vector.
size_t halving_scratch_count(const std::vector<size_t>& starts);

// starts[] for `count` elements in pof2 nearly equal positions.
std::vector<size_t> equal_positions(size_t count, int pof2);

}  // namespace ferry::coll
