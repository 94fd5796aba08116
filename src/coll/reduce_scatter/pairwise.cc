// Reduce_scatter by pairwise exchange.
//
// Chosen for large vectors with commutative operations: in step i each rank
// sends the piece that rank + i needs, straight to it, and adds the piece
// that rank - i sends; every piece crosses the network once.
//
// Cost = (p-1).alpha + n(p-1)/p.beta + n(p-1)/p.gamma.
//
// Order: contributions arrive from rank-1, rank-2, ... and are combined as
// they come: not rank order, so the selection table keeps non-commutative
// operations away. Each block is reduced on one rank only.
#include <vector>

#include "coll/reduce_scatter/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void reduce_scatter_pairwise(Schedule& s, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                             const Datatype* type, const Op* op) {
  const int p = s.size();
  const int rank = s.rank();
  std::vector<size_t> displs(static_cast<size_t>(p) + 1, 0);
  for (int r = 0; r < p; ++r)
    displs[static_cast<size_t>(r) + 1] = displs[static_cast<size_t>(r)] + static_cast<size_t>(recvcounts[r]);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* input = in_place ? recvbuf : sendbuf;
  const MPI_Count mine = recvcounts[rank];
  // In place, the input's other blocks must survive until they are sent:
  // accumulate in scratch and move the result to the front at the end.
  void* acc = in_place ? temp_buffer(s, static_cast<size_t>(mine), type) : recvbuf;
  void* tmp = temp_buffer(s, static_cast<size_t>(mine), type);

  // Phase 0: this rank's own contribution to its block.
  s.copy(element(input, displs[static_cast<size_t>(rank)], type), mine, type, acc, mine, type);
  s.end_round();

  // Phase 1: p-1 exchanges, each with a different pair of ranks.
  for (int i = 1; i < p; ++i) {
    const int to = (rank + i) % p;
    const int from = (rank - i + p) % p;
    if (mine > 0) s.recv(tmp, mine, type, from);
    if (recvcounts[to] > 0) s.send(element(input, displs[static_cast<size_t>(to)], type), recvcounts[to], type, to);
    if (mine > 0) s.reduce(tmp, acc, mine, type, op);
    s.end_round();
  }

  // Phase 2: in place, the result to the front of recvbuf.
  if (in_place) {
    s.copy(acc, mine, type, recvbuf, mine, type);
    s.end_round();
  }
}

}  // namespace ferry::coll
