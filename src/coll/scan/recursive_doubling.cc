// Scan and exscan by recursive doubling.
//
// The only scan algorithm: in round k each rank swaps with rank XOR 2^k the
// reduction of its aligned block of 2^k ranks ("partial"); a rank that hears
// from a lower block adds it to its prefix. After ceil(lg p) rounds every
// rank has the reduction of all ranks up to itself (scan) or before it
// (exscan).
//
// Cost = lg p.alpha + n.lg p.beta + 2n.lg p.gamma (the last round's data
// moves one way only).
//
// Order: a lower block's partial is always combined in front, a higher
// block's behind: rank order, safe for non-commutative operations.
#include <utility>

#include "coll/scan/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void scan_recursive_doubling(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                             const Op* op, bool exclusive) {
  const int p = s.size();
  const int rank = s.rank();
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  void* partial = temp_buffer(s, static_cast<size_t>(count), type);
  void* tmp = temp_buffer(s, static_cast<size_t>(count), type);

  // Phase 0: the partial starts as this rank's input, and so does the
  // prefix of an inclusive scan; an exclusive one has no prefix yet.
  s.copy(input, count, type, partial, count, type);
  if (!exclusive && input != recvbuf) s.copy(input, count, type, recvbuf, count, type);
  s.end_round();
  bool have_prefix = !exclusive;

  // Phase 1: recursive doubling.
  for (int mask = 1; mask < p; mask <<= 1) {
    const int partner = rank ^ mask;
    if (partner >= p) continue;
    const bool partial_needed = (mask << 1) < p;  // not after the last round
    // A lower block's partial is needed above it (the prefix), a higher one's
    // only for the next round's partial: in the last round only the lower
    // rank sends (at 2 ranks: one message, not an exchange).
    if (partner < rank || partial_needed) s.recv(tmp, count, type, partner);
    if (partner > rank || partial_needed) s.send(partial, count, type, partner);
    if (partner < rank) {
      // The partner's block lies just below everything this rank has.
      if (have_prefix) s.reduce(tmp, recvbuf, count, type, op);
      else s.copy(tmp, count, type, recvbuf, count, type);
      have_prefix = true;
      if (partial_needed) s.reduce(tmp, partial, count, type, op);
    } else if (partial_needed) {
      // The partner's block lies above: partial = partial op theirs.
      if (op->commutative) {
        s.reduce(tmp, partial, count, type, op);
      } else {
        s.reduce(partial, tmp, count, type, op);
        std::swap(partial, tmp);
      }
    }
    s.end_round();
  }
}

}  // namespace ferry::coll
