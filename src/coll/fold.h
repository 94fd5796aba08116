// Folding a communicator of any size onto a power of two, for the algorithms
// that pair ranks by XOR (recursive doubling, recursive halving).
//
// With pof2 the largest power of two <= p and rem = p - pof2, the first
// 2*rem ranks pair up: even rank 2i hands its vector to odd rank 2i+1, which
// combines them as (2i op 2i+1) and acts as new rank i; ranks >= 2*rem act
// as new rank r - rem. The pairs are adjacent ranks and new ranks keep the
// order of real ranks, so folding preserves rank order for non-commutative
// operations (MPI-3.1 §5.9.1). Cost of the fold-in: alpha + n.beta + n.gamma
// (and the same again, without gamma, to hand the result back).
#pragma once

#include "coll/schedule.h"
#include "base/datatype.h"
#include "base/op.h"

namespace ferry::coll {

struct Fold {
  int pof2;
  int rem;
  int newrank;  // -1: this rank sits out the power-of-two part

  // The real rank acting as new rank v.
  int real(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  // Whether this rank hands its data to its odd neighbour and sits out.
  bool sits_out(int rank) const { return rank < 2 * rem && rank % 2 == 0; }
};

inline Fold fold_of(int rank, int p) {
  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  int rem = p - pof2;
  int newrank = rank < 2 * rem ? (rank % 2 == 0 ? -1 : rank / 2) : rank - rem;
  return Fold{pof2, rem, newrank};
}

// The fold-in round: even ranks below 2*rem send `acc`, their odd neighbours
// receive it into `tmp` and combine it in front of their own data.
inline void fold_in(Schedule& s, const Fold& f, int rank, void* acc, void* tmp, MPI_Count count, const Datatype* type,
                    const Op* op) {
  if (rank >= 2 * f.rem) return;
  if (f.sits_out(rank)) {
    s.send(acc, count, type, rank + 1);
  } else {
    s.recv(tmp, count, type, rank - 1);
    s.reduce(tmp, acc, count, type, op);  // acc = (rank-1) op rank
  }
  s.end_round();
}

}  // namespace ferry::coll
