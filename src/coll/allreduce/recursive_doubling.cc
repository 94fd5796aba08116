// Allreduce by recursive doubling.
//
// Chosen for small vectors, where the number of rounds decides: in round k
// each rank swaps its whole partial result with rank XOR 2^k, so after lg p
// rounds every rank has everything. Non-power-of-two sizes fold the extra
// ranks in first (coll/fold.h) and hand them the result at the end.
//
// Cost = lg p.alpha + n.lg p.beta + n.lg p.gamma
//        (+ 2.alpha + 2n.beta + n.gamma when p is not a power of two).
//
// Order and bits: partners always combine (lower ranks' partial) op (higher
// ranks' partial), and each partial covers a contiguous range of ranks, so
// non-commutative operations are applied in rank order, and both partners
// compute the same operation on the same bits: every rank ends with
// identical bits. The association tree depends on p, so floating-point
// results may differ between communicator sizes.
#include "coll/allreduce/algorithms.h"

#include <utility>

#include "coll/fold.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void allreduce_recursive_doubling(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                                  const Datatype* type, const Op* op) {
  const int rank = s.rank();
  const Fold f = fold_of(rank, s.size());
  // The partial result lives in `acc`; the partner's arrives in `spare`.
  // Which buffer is which is decided here, while building, so no round
  // copies data just to move it back.
  void* acc = recvbuf;
  void* spare = nullptr;  // made when a round needs it (not at 2 ranks, fast path)
  auto need_spare = [&] { return spare != nullptr ? spare : (spare = temp_buffer(s, count, type)); };
  const bool in_place = sendbuf == MPI_IN_PLACE || sendbuf == recvbuf;

  // Without folding or MPI_IN_PLACE the first exchange sends the input as
  // it lies and the partner's lands in recvbuf, where the sum is made:
  // no copy of the input (issue 29: at 2 ranks the copies in and out were
  // half the memory traffic of 64-512 KiB). The lower rank computes mine
  // op theirs there; the higher one the same operands the other way round,
  // which gives the same bits only for a predefined operation (IEEE
  // addition and multiplication commute exactly, up to which NaN's payload
  // a sum of two NaNs keeps), so a user's operation
  // receives into scratch and combines as below.
  int first_mask = 1;
  if (f.rem == 0 && !in_place && f.pof2 > 1) {
    const int partner = f.real(f.newrank ^ 1);
    const bool lower = rank < partner;
    const bool swap_ok = lower || (op->commutative && !op->user());
    s.recv(swap_ok ? recvbuf : need_spare(), count, type, partner);
    s.send(sendbuf, count, type, partner);
    if (swap_ok) {
      s.reduce(sendbuf, recvbuf, count, type, op);  // recvbuf = mine op partner's
    } else {
      s.copy(sendbuf, count, type, recvbuf, count, type);
      s.reduce(spare, recvbuf, count, type, op);  // recvbuf = partner's op mine
    }
    s.end_round();
    first_mask = 2;
  } else {
    // Phase 0: the input into recvbuf.
    copy_input(s, sendbuf, recvbuf, count, type);
  }

  // Phase 1: fold the ranks beyond the largest power of two into their
  // neighbours.
  if (rank < 2 * f.rem) fold_in(s, f, rank, acc, need_spare(), count, type, op);

  // Phase 2: recursive doubling among the power-of-two new ranks.
  if (f.newrank >= 0) {
    for (int mask = first_mask; mask < f.pof2; mask <<= 1) {
      int partner = f.real(f.newrank ^ mask);
      need_spare();
      s.recv(spare, count, type, partner);
      s.send(acc, count, type, partner);
      if (partner < rank) {
        s.reduce(spare, acc, count, type, op);  // acc = partner's op mine
      } else {
        s.reduce(acc, spare, count, type, op);  // spare = mine op partner's
        std::swap(acc, spare);
      }
      s.end_round();
    }
  }

  // Phase 3: hand the result to the ranks that sat out.
  if (rank < 2 * f.rem) {
    if (f.sits_out(rank)) s.recv(recvbuf, count, type, rank + 1);
    else s.send(acc, count, type, rank - 1);
    s.end_round();
  }
  if (acc != recvbuf) {
    s.copy(acc, count, type, recvbuf, count, type);
    s.end_round();
  }
}

}  // namespace ferry::coll
