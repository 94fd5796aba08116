// Reduce by a binomial tree.
//
// Chosen for small and medium vectors: lg p rounds, in round k every rank
// whose k lowest bits (relative to the tree's root) are clear receives the
// partial of the rank 2^k above it, and every rank whose bit k is the
// lowest one set sends its partial to the rank 2^k below and is done.
//
// Cost = lg p.(alpha + n.beta + n.gamma)
//        (+ alpha + n.beta for a non-commutative op whose root is not 0),
//        with ceil(n / 256 KiB) alphas a level from n = 2 MiB (below).
//
// A receiving rank's first partner's partial lands straight in its
// accumulator and its own input is combined into it (`in` of the
// operation: its ranks are the lower ones), so the input is never copied
// and, on two ranks, the root needs no scratch: two passes over n bytes
// instead of copy, receive into scratch, combine (three, and a scratch
// buffer that evicts recvbuf). Only MPI_IN_PLACE, where the input already
// is the accumulator, receives that partial into scratch.
//
// Large partials move in segments (about kSegmentBytes), each combined as soon
// as it has arrived, while it is still in this core's cache: whole, a
// partial of 2 MiB or more was received into a buffer that the core's
// 2 MiB L2 could not keep until the combine read it again (2-rank reduce
// of 2 / 4 MiB: 372 / 802 us whole, 284 / 588 in segments, Open MPI's
// 352 / 738). A segment's receive is posted once the one before it is
// combined: the receiving core does both, taking turns (the sender's whole
// partial is offered at once). Sender and receiver cut at the same
// elements (a reduction's count and type are the same on every rank).
//
// Order: the receiving rank's partial covers ranks [r, r + 2^k) and the
// incoming one [r + 2^k, r + 2^(k+1)), combined in that order. For a
// commutative op the tree is rooted at `root` (ranks counted from it); for
// a non-commutative one it is rooted at rank 0, so that ranges are rank
// ranges, and rank 0 sends the result to `root` at the end.
#include <algorithm>
#include <utility>

#include "coll/reduce/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

namespace {

// Partials of at least kPipelineBytes go in segments of about kSegmentBytes
// (whole elements): a segment, its input and its accumulator together
// stay well inside a core's L2 (128 and 512 KiB segments were 1-5% slower
// at 2-4 MiB), and a partial of 512 KiB-1 MiB, which the L2 kept whole,
// gains nothing from being cut into messages that each cost a handshake.
constexpr size_t kSegmentBytes = size_t{256} << 10;
constexpr size_t kPipelineBytes = size_t{2} << 20;

// The segments of `count` elements: one below kPipelineBytes (also of 0
// elements: an intercommunicator's local reduction comes here with count
// 0), else about kSegmentBytes each, nearly equal.
Blocks segments(MPI_Count count, const Datatype* type) {
  if (type->bytes(count) < kPipelineBytes) return {static_cast<size_t>(count), 1};
  return blocks_of_about(count, type, kSegmentBytes);
}

}  // namespace

void reduce_binomial(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                     const Op* op, int root) {
  const int p = s.size();
  const int rank = s.rank();
  const bool ordered = !op->commutative;
  const int tree_root = ordered ? 0 : root;
  const int rel = (rank - tree_root + p) % p;
  auto real = [&](int r) { return (r + tree_root) % p; };
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;

  // A rank that receives anything accumulates in a buffer of its own
  // (recvbuf at the tree's root); a leaf sends its input as it is.
  bool receives = false;
  for (int mask = 1; mask < p && (rel & mask) == 0; mask <<= 1)
    if (rel + mask < p) receives = true;
  const void* partial = input;
  void* acc = nullptr;
  void* tmp = nullptr;
  // Whether acc holds this rank's input yet (in place at the root it does).
  bool acc_holds_input = false;
  if (receives) {
    acc = rank == root && rank == tree_root ? recvbuf : temp_buffer(s, static_cast<size_t>(count), type);
    acc_holds_input = acc == input;
    partial = acc;
  }
  // Scratch for the incoming partials, wherever one lands outside acc.
  auto incoming = [&]() {
    if (tmp == nullptr) tmp = temp_buffer(s, static_cast<size_t>(count), type);
    return tmp;
  };
  const Blocks segs = segments(count, type);
  auto at = [&](auto* buf, size_t i) { return element(buf, segs.start(i), type); };
  auto length = [&](size_t i) { return static_cast<MPI_Count>(segs.size(i)); };

  // Phase 1: up the binomial tree.
  for (int mask = 1; mask < p; mask <<= 1) {
    if (rel & mask) {
      for (size_t i = 0; i < segs.parts; ++i) s.send(at(partial, i), length(i), type, real(rel - mask));
      s.end_round();
      break;
    }
    if (rel + mask >= p) continue;
    const int from = real(rel + mask);
    if (!acc_holds_input) {
      // First partner: its partial into acc, then mine (the lower ranks)
      // op theirs, which is the order of both branches below.
      for (size_t i = 0; i < segs.parts; ++i) {
        s.recv(at(acc, i), length(i), type, from);
        s.reduce(at(input, i), at(acc, i), length(i), type, op);
        s.end_round();
      }
      acc_holds_input = true;
      continue;
    }
    void* theirs = incoming();
    for (size_t i = 0; i < segs.parts; ++i) {
      s.recv(at(theirs, i), length(i), type, from);
      if (ordered) s.reduce(at(acc, i), at(theirs, i), length(i), type, op);  // mine (lower ranks) op theirs
      else s.reduce(at(theirs, i), at(acc, i), length(i), type, op);
      s.end_round();
    }
    if (ordered) {
      std::swap(acc, tmp);
      partial = acc;
    }
  }

  // Phase 2: the result to the root, if the tree had another root, or into
  // recvbuf if it ended in scratch.
  if (tree_root != root) {
    if (rank == tree_root) s.send(partial, count, type, root);
    else if (rank == root) s.recv(recvbuf, count, type, tree_root);
    s.end_round();
  } else if (rank == root && partial != recvbuf) {
    s.copy(partial, count, type, recvbuf, count, type);
    s.end_round();
  }
}

}  // namespace ferry::coll
