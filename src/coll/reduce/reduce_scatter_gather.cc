// Reduce by reduce-scatter and gather (Rabenseifner 2004): recursive
// halving leaves each rank one piece of the reduced vector, then the
// pieces are gathered to the root along the same rounds in reverse.
//
// Chosen for large vectors on 4 or more ranks: the binomial tree sends the
// whole vector lg p times over the root's link, this sends it about twice.
// Non-power-of-two sizes fold the extra ranks in first (coll/fold.h).
//
// Cost = 2 lg p.alpha + 2n(p-1)/p.beta + n(p-1)/p.gamma
//        (+ alpha + n.beta + n.gamma when p is not a power of two, and
//         + alpha + n.beta when the root is not the gather's end point,
//         new rank 0: rank 0, or rank 1 when p is not a power of two).
//
// Order: the halving combines adjacent blocks of ranks, lower block first
// (coll/halving.h): safe for non-commutative operations.
#include "coll/fold.h"
#include "coll/halving.h"
#include "coll/reduce/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void reduce_scatter_gather(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                           const Op* op, int root) {
  const int rank = s.rank();
  const Fold f = fold_of(rank, s.size());
  const int gatherer = f.real(0);
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;

  // Phase 1: fold the extra ranks in. A rank that sits out only sends its
  // input; the others accumulate in scratch (in recvbuf at a root that is
  // also where the gather ends).
  if (f.sits_out(rank)) {
    s.send(input, count, type, rank + 1);
    s.end_round();
  } else {
    const std::vector<size_t> starts = equal_positions(static_cast<size_t>(count), f.pof2);
    void* acc = rank == root && rank == gatherer ? recvbuf : temp_buffer(s, static_cast<size_t>(count), type);
    // Scratch for what arrives: the whole vector in the fold, else half.
    const bool folds = rank < 2 * f.rem;
    void* tmp = temp_buffer(s, folds ? static_cast<size_t>(count) : halving_scratch_count(starts), type);
    copy_input(s, input, acc, count, type);
    fold_in(s, f, rank, acc, tmp, count, type, op);

    // Phase 2: reduce-scatter by recursive halving.
    PositionRange owned = halving_reduce_scatter(s, f, acc, tmp, starts, type, op);

    // Phase 3: gather the pieces to new rank 0.
    doubling_gather(s, f, acc, owned, starts, type);
    if (rank == gatherer && root != gatherer) {
      s.send(acc, count, type, root);
      s.end_round();
    }
  }

  // Phase 4: the result to a root that is not where the gather ended.
  if (rank == root && root != gatherer) {
    s.recv(recvbuf, count, type, gatherer);
    s.end_round();
  }
}

}  // namespace ferry::coll
