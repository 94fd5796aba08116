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
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* input = in_place ? recvbuf : sendbuf;
  // Copies only where a buffer must change (issue 29: at 2 ranks the scan
  // copied its input twice and received into scratch; now rank 0 sends its
  // input as it lies and rank 1 receives into recvbuf). In place the input
  // is recvbuf, which the prefix overwrites: the partial is copied first.
  const void* partial = input;  // this rank's block's reduction, as it lies
  void* own_partial = nullptr;  // scratch once the partial must change
  void* tmp = nullptr;
  auto scratch = [&]() { return temp_buffer(s, static_cast<size_t>(count), type); };
  if (in_place && p > 2) {
    own_partial = scratch();
    s.copy(input, count, type, own_partial, count, type);
    s.end_round();
    partial = own_partial;
  }
  // Whether recvbuf holds a prefix yet; an inclusive scan's starts as the
  // input, put there only once it is known how (see the first lower block).
  bool have_prefix = false;

  // Phase 1: recursive doubling.
  for (int mask = 1; mask < p; mask <<= 1) {
    const int partner = rank ^ mask;
    if (partner >= p) continue;
    const bool partial_needed = (mask << 1) < p;  // not after the last round
    // A lower block's partial is needed above it (the prefix), a higher one's
    // only for the next round's partial: in the last round only the lower
    // rank sends (at 2 ranks: one message, not an exchange).
    const bool receives = partner < rank || partial_needed;
    // The first lower block lands in recvbuf itself where that loses
    // nothing: an exscan's prefix is that block; an inclusive scan's is it
    // op the input, which a commutative op may compute as input op it.
    const bool into_recvbuf =
        partner < rank && !have_prefix && !in_place && (exclusive || op->commutative);
    void* incoming = nullptr;
    if (receives) {
      if (into_recvbuf) incoming = recvbuf;
      else incoming = tmp != nullptr ? tmp : (tmp = scratch());
      s.recv(incoming, count, type, partner);
    }
    if (partner > rank || partial_needed) s.send(partial, count, type, partner);
    // The partial changes from here: it needs a buffer of its own.
    if (partial_needed && own_partial == nullptr) {
      own_partial = scratch();
      s.copy(partial, count, type, own_partial, count, type);
      partial = own_partial;
    }
    if (partner < rank) {
      // The partner's block lies just below everything this rank has.
      if (partial_needed) s.reduce(incoming, own_partial, count, type, op);
      if (into_recvbuf) {
        if (!exclusive) s.reduce(input, recvbuf, count, type, op);  // input op theirs: commutative
      } else if (have_prefix || (!exclusive && in_place)) {
        s.reduce(incoming, recvbuf, count, type, op);
      } else if (exclusive) {
        s.copy(incoming, count, type, recvbuf, count, type);
      } else {
        // Inclusive, not commutative: the input first, then theirs in front.
        s.copy(input, count, type, recvbuf, count, type);
        s.reduce(incoming, recvbuf, count, type, op);
      }
      have_prefix = true;
    } else if (partial_needed) {
      // The partner's block lies above: partial = partial op theirs.
      if (op->commutative) {
        s.reduce(incoming, own_partial, count, type, op);
      } else {
        s.reduce(own_partial, incoming, count, type, op);
        std::swap(own_partial, tmp);
        partial = own_partial;
      }
    }
    s.end_round();
  }

  // Phase 2: a rank with no lower block (rank 0) has its input as its
  // inclusive prefix.
  if (!exclusive && !have_prefix && !in_place) {
    s.copy(input, count, type, recvbuf, count, type);
    s.end_round();
  }
}

}  // namespace ferry::coll
