// Allgather by recursive doubling.
//
// Chosen for short and medium messages on power-of-two communicators: in
// log2 p steps each rank exchanges everything it has with a partner at
// distance 1, 2, 4..., so the data doubles every step.
//
// Other sizes are handled by folding: with p' the largest power of two below
// p, rank p' + i (i < p - p') first hands its block to rank i, the p' ranks
// run the doubling carrying their partner's block along, and rank i finally
// sends the whole result back to rank p' + i. The group of ranks [b, b + m)
// holds blocks [b, b + m) and [b + p', b + m + p'), two runs of recvbuf, so
// every exchange is at most two messages.
//
// Cost = log2 p * alpha + (p-1)/p * n * beta for p a power of two;
// otherwise (floor(log2 p) + 2) * alpha + (2 - 1/p) * n * beta.
#include <algorithm>

#include "coll/allgather/algorithms.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void allgather_recursive_doubling(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype,
                                  void* recvbuf, MPI_Count recvcount, const Datatype* recvtype) {
  const int p = s.size();
  const int rank = s.rank();
  const int pof2 = power_of_two_floor(p);
  const int extra = p - pof2;
  auto block = [&](int j) {
    return element(recvbuf, static_cast<size_t>(j) * static_cast<size_t>(recvcount), recvtype);
  };
  // Blocks [first, last) as one message; empty runs are skipped on both sides.
  auto send_run = [&](int first, int last, int to) {
    if (last > first) s.send(block(first), (last - first) * recvcount, recvtype, to);
  };
  auto recv_run = [&](int first, int last, int from) {
    if (last > first) s.recv(block(first), (last - first) * recvcount, recvtype, from);
  };

  // Phase 1: this rank's own block into its place.
  if (sendbuf != MPI_IN_PLACE) {
    s.copy(sendbuf, sendcount, sendtype, block(rank), recvcount, recvtype);
    s.end_round();
  }

  // Phase 2 (p not a power of two): the ranks beyond p' fold their block
  // onto rank - p'.
  if (rank >= pof2) {
    send_run(rank, rank + 1, rank - pof2);
    s.end_round();
    // Phase 4 (folded ranks): the whole result comes back.
    recv_run(0, p, rank - pof2);
    s.end_round();
    return;
  }
  if (rank < extra) {
    recv_run(rank + pof2, rank + pof2 + 1, rank + pof2);
    s.end_round();
  }

  // Phase 3: recursive doubling among the first p' ranks. Before the step
  // with distance m, the group [base, base + m) holds its blocks and its
  // folded partners' blocks; it swaps both runs with the partner group.
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int partner = rank ^ mask;
    const int mine = rank & ~(mask - 1), theirs = partner & ~(mask - 1);
    recv_run(theirs, theirs + mask, partner);
    recv_run(theirs + pof2, std::min(theirs + mask + pof2, p), partner);
    send_run(mine, mine + mask, partner);
    send_run(mine + pof2, std::min(mine + mask + pof2, p), partner);
    s.end_round();
  }

  // Phase 4: hand the full result to the folded partner.
  if (rank < extra) {
    send_run(0, p, rank + pof2);
    s.end_round();
  }
}

}  // namespace ferry::coll
