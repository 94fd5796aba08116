// Reduce_scatter by recursive halving (Thakur, Rabenseifner, Gropp 2005).
//
// Chosen for small and medium vectors, and for every non-commutative
// operation: lg p rounds, each halving the data a rank handles.
// Non-power-of-two sizes fold the extra ranks in first (coll/fold.h): new
// rank v then stands for real ranks 2v and 2v+1 and their blocks together.
//
// Cost = lg p.alpha + n(p-1)/p.(beta + gamma)
//        (+ 2.alpha + n.beta + n.gamma when p is not a power of two).
//
// Order: the halving (coll/halving.h) keeps rank order but leaves new rank
// v with position bit_reverse(v). So the input is first copied into
// scratch with new rank v's blocks at position bit_reverse(v); the halving
// then delivers every rank its own blocks, and the combining stays in rank
// order: safe for non-commutative operations. The extra local copy of the
// vector costs n bytes of memory traffic.
#include <vector>

#include "coll/fold.h"
#include "coll/halving.h"
#include "coll/reduce_scatter/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {
namespace {

int bit_reverse(int v, int bits) {
  int r = 0;
  for (int i = 0; i < bits; ++i) r |= ((v >> i) & 1) << (bits - 1 - i);
  return r;
}

}  // namespace

void reduce_scatter_recursive_halving(Schedule& s, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                                      const Datatype* type, const Op* op) {
  const int p = s.size();
  const int rank = s.rank();
  const Fold f = fold_of(rank, p);
  std::vector<size_t> displs(static_cast<size_t>(p) + 1, 0);
  for (int r = 0; r < p; ++r)
    displs[static_cast<size_t>(r) + 1] = displs[static_cast<size_t>(r)] + static_cast<size_t>(recvcounts[r]);
  const size_t n = displs.back();
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  const MPI_Count mine = recvcounts[rank];

  // Phase 1 for the ranks that sit out: hand the whole input over, and
  // later receive this rank's block back.
  if (f.sits_out(rank)) {
    s.send(input, static_cast<int>(n), type, rank + 1);
    s.end_round();
    if (mine > 0) s.recv(recvbuf, mine, type, rank + 1);
    s.end_round();
    return;
  }

  // New rank v's elements: the blocks of the real ranks it stands for.
  auto first_rank = [&](int v) { return v < f.rem ? 2 * v : v + f.rem; };
  auto last_rank = [&](int v) { return v < f.rem ? 2 * v + 1 : v + f.rem; };
  int bits = 0;
  while ((1 << bits) < f.pof2) ++bits;
  // starts[pos]: where position pos (new rank bit_reverse(pos)) begins in
  // the permuted vector.
  std::vector<size_t> starts(static_cast<size_t>(f.pof2) + 1, 0);
  for (int pos = 0; pos < f.pof2; ++pos) {
    int v = bit_reverse(pos, bits);
    starts[static_cast<size_t>(pos) + 1] = starts[static_cast<size_t>(pos)] +
        displs[static_cast<size_t>(last_rank(v)) + 1] - displs[static_cast<size_t>(first_rank(v))];
  }
  void* acc = temp_buffer(s, n, type);
  // Scratch for what arrives: the neighbour's whole vector in the fold,
  // else half of the vector.
  void* tmp = temp_buffer(s, rank < 2 * f.rem ? n : halving_scratch_count(starts), type);

  // Phase 0: the input into scratch, new rank v's blocks at position
  // bit_reverse(v).
  for (int pos = 0; pos < f.pof2; ++pos) {
    int v = bit_reverse(pos, bits);
    size_t from = displs[static_cast<size_t>(first_rank(v))];
    MPI_Count len = static_cast<MPI_Count>(starts[static_cast<size_t>(pos) + 1] - starts[static_cast<size_t>(pos)]);
    if (len > 0)
      s.copy(element(input, from, type), len, type, element(acc, starts[static_cast<size_t>(pos)], type), len, type);
  }
  s.end_round();

  // Phase 1: the odd ranks below 2*rem take in their even neighbour's input
  // (in the user's order) and combine it in front of their own, piece by
  // piece into the permuted layout.
  if (rank < 2 * f.rem) {
    s.recv(tmp, static_cast<int>(n), type, rank - 1);
    for (int pos = 0; pos < f.pof2; ++pos) {
      int v = bit_reverse(pos, bits);
      size_t from = displs[static_cast<size_t>(first_rank(v))];
      MPI_Count len = static_cast<MPI_Count>(starts[static_cast<size_t>(pos) + 1] - starts[static_cast<size_t>(pos)]);
      if (len > 0)
        s.reduce(element(tmp, from, type), element(acc, starts[static_cast<size_t>(pos)], type), len, type, op);
    }
    s.end_round();
  }

  // Phase 2: recursive halving; this rank ends with position
  // bit_reverse(newrank): its own blocks.
  PositionRange owned = halving_reduce_scatter(s, f, acc, tmp, starts, type, op);
  const char* result = element(acc, starts[static_cast<size_t>(owned.lo)], type);

  // Phase 3: the blocks to their ranks: the even neighbour's back to it,
  // this rank's into recvbuf.
  if (rank < 2 * f.rem) {
    int theirs = recvcounts[rank - 1];
    if (theirs > 0) s.send(result, theirs, type, rank - 1);
    result = element(result, static_cast<size_t>(theirs), type);
  }
  if (mine > 0) s.copy(result, mine, type, recvbuf, mine, type);
  s.end_round();
}

}  // namespace ferry::coll
