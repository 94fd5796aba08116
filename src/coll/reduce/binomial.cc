// Reduce by a binomial tree.
//
// Chosen for small and medium vectors: lg p rounds, in round k every rank
// whose k lowest bits (relative to the tree's root) are clear receives the
// partial of the rank 2^k above it, and every rank whose bit k is the
// lowest one set sends its partial to the rank 2^k below and is done.
//
// Cost = lg p.(alpha + n.beta + n.gamma)
//        (+ alpha + n.beta for a non-commutative op whose root is not 0).
//
// A receiving rank's first partner's partial lands straight in its
// accumulator and its own input is combined into it (`in` of the
// operation: its ranks are the lower ones), so the input is never copied
// and, on two ranks, the root needs no scratch: two passes over n bytes
// instead of copy, receive into scratch, combine (three, and a scratch
// buffer that evicts recvbuf). Only MPI_IN_PLACE, where the input already
// is the accumulator, receives that partial into scratch.
//
// Order: the receiving rank's partial covers ranks [r, r + 2^k) and the
// incoming one [r + 2^k, r + 2^(k+1)), combined in that order. For a
// commutative op the tree is rooted at `root` (ranks counted from it); for
// a non-commutative one it is rooted at rank 0, so that ranges are rank
// ranges, and rank 0 sends the result to `root` at the end.
#include <utility>

#include "coll/reduce/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

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

  // Phase 1: up the binomial tree.
  for (int mask = 1; mask < p; mask <<= 1) {
    if (rel & mask) {
      s.send(partial, count, type, real(rel - mask));
      s.end_round();
      break;
    }
    if (rel + mask >= p) continue;
    if (!acc_holds_input) {
      // First partner: its partial into acc, then mine (the lower ranks)
      // op theirs, which is the order of both branches below.
      s.recv(acc, count, type, real(rel + mask));
      s.reduce(input, acc, count, type, op);
      acc_holds_input = true;
      s.end_round();
      continue;
    }
    s.recv(incoming(), count, type, real(rel + mask));
    if (ordered) {
      s.reduce(acc, tmp, count, type, op);  // mine (lower ranks) op theirs
      std::swap(acc, tmp);
      partial = acc;
    } else {
      s.reduce(tmp, acc, count, type, op);
    }
    s.end_round();
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
