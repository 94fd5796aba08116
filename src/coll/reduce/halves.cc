// Reduce on two ranks, each reducing half of the vector.
//
// Runs on communicators of exactly two ranks with a commutative operation,
// where FERRY_REDUCE_ALGORITHM=halves asks (and for hier's two leaders when
// asked so): the table no longer picks it. The binomial tree makes the root
// do all the work: receive the other rank's whole vector into recvbuf and
// combine its input there (two passes over n bytes, all on the root; three
// with a copy before 2026-11-30, when this won from 512 KiB). Here the
// ranks swap halves of their inputs, each combines one
// half, and the other rank's combined half is then received straight into
// the root's recvbuf: the root moves and combines n/2 at a time, no copy of
// its input, and no scratch unless MPI_IN_PLACE. It is the allreduce ring
// on two ranks (allreduce/ring.cc) with a one-way gather.
//
// Cost = 2.alpha + n.beta + n/2.gamma
//        (binomial: alpha + n.beta + n.gamma, plus the copy of the input).
//
// Order: each half is combined on one rank, its own input on the other
// side of the operation than the binomial tree puts it; so commutative
// operations only (IEEE addition and multiplication give the same bits
// either way), and the selection table keeps non-commutative ones away.
#include "coll/reduce/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void reduce_halves(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                   const Op* op, int root) {
  const int rank = s.rank();
  const int other = 1 - rank;
  const Blocks halves{static_cast<size_t>(count), 2};
  // Rank r combines half r; the root's result ends in recvbuf.
  const size_t mine_first = halves.start(static_cast<size_t>(rank));
  const auto mine_n = static_cast<MPI_Count>(halves.size(static_cast<size_t>(rank)));
  const size_t theirs_first = halves.start(static_cast<size_t>(other));
  const auto theirs_n = static_cast<MPI_Count>(halves.size(static_cast<size_t>(other)));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* input = in_place ? recvbuf : sendbuf;

  // Phase 1: swap halves and combine mine. The other's part of my half
  // lands where the result goes (the root's recvbuf, else scratch) and my
  // input is combined into it; in place, my input is in recvbuf already,
  // so the other's part lands in scratch and is combined into recvbuf.
  void* result = rank == root ? element(recvbuf, mine_first, type)
                              : temp_buffer(s, static_cast<size_t>(mine_n), type);
  void* incoming = in_place ? temp_buffer(s, static_cast<size_t>(mine_n), type) : result;
  if (mine_n > 0) s.recv(incoming, mine_n, type, other);
  if (theirs_n > 0) s.send(element(input, theirs_first, type), theirs_n, type, other);
  if (mine_n > 0) {
    if (in_place) s.reduce(incoming, result, mine_n, type, op);
    else s.reduce(element(input, mine_first, type), result, mine_n, type, op);
  }
  s.end_round();

  // Phase 2: the other rank's combined half to the root, into recvbuf
  // (in place, over the input the root sent in phase 1: that send is
  // complete once its round is).
  if (rank == root) {
    if (theirs_n > 0) s.recv(element(recvbuf, theirs_first, type), theirs_n, type, other);
  } else if (mine_n > 0) {
    s.send(result, mine_n, type, root);
  }
  s.end_round();
}

}  // namespace ferry::coll
