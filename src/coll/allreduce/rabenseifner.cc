// Allreduce by Rabenseifner's algorithm: a reduce-scatter by recursive
// halving, then an allgather by recursive doubling (Rabenseifner 2004;
// Thakur, Rabenseifner, Gropp 2005).
//
// Chosen for medium and large vectors, and for large ones whose operation is
// not commutative (the ring cannot take them): each round halves the data a
// rank handles, so it moves 2n bytes like the ring but in 2 lg p rounds
// instead of 2(p-1). Non-power-of-two sizes fold the extra ranks in first
// (coll/fold.h).
//
// Cost = 2 lg p.alpha + 2n(p-1)/p.beta + n(p-1)/p.gamma
//        (+ 2.alpha + 2n.beta + n.gamma when p is not a power of two).
//
// Order and bits: the halving (coll/halving.h) combines partials of
// adjacent blocks of ranks, lower block first, which is rank order. Every element is
// reduced on one rank and then copied to all: identical bits everywhere.
// The association tree depends on p.
#include "coll/allreduce/algorithms.h"
#include "coll/fold.h"
#include "coll/halving.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void allreduce_rabenseifner(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                            const Op* op) {
  const int rank = s.rank();
  const Fold f = fold_of(rank, s.size());
  const std::vector<size_t> starts = equal_positions(static_cast<size_t>(count), f.pof2);
  // Scratch for what arrives: the whole vector in the fold, else half.
  void* tmp = temp_buffer(s, f.rem > 0 ? static_cast<size_t>(count) : halving_scratch_count(starts), type);

  // Phase 0: the input into recvbuf.
  copy_input(s, sendbuf, recvbuf, count, type);

  // Phase 1: fold the ranks beyond the largest power of two into their
  // neighbours.
  fold_in(s, f, rank, recvbuf, tmp, count, type, op);

  if (f.newrank >= 0) {
    // Phase 2: reduce-scatter by recursive halving: each rank ends with one
    // of pof2 pieces of the vector, complete.
    PositionRange owned = halving_reduce_scatter(s, f, recvbuf, tmp, starts, type, op);
    // Phase 3: allgather by recursive doubling, retracing phase 2.
    doubling_allgather(s, f, recvbuf, owned, starts, type);
  }

  // Phase 4: hand the result to the ranks that sat out.
  if (rank < 2 * f.rem) {
    if (f.sits_out(rank)) s.recv(recvbuf, count, type, rank + 1);
    else s.send(recvbuf, count, type, rank - 1);
    s.end_round();
  }
}

}  // namespace ferry::coll
