// Scatterv, linear: the root sends every rank its block directly.
//
// The only Scatterv algorithm: with a count per rank a tree would need every
// inner rank to know its subtree's counts, which only the root has. The
// root starts all p-1 sends in one round, straight from sendbuf.
//
// Cost = (p-1) * alpha + n * beta at the root, n the scattered bytes.
#include "coll/scatter/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void scatterv_linear(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray displs,
                     const Datatype* sendtype, void* recvbuf, MPI_Count recvcount, const Datatype* recvtype, int root) {
  const int p = s.size();
  const int rank = s.rank();

  if (rank != root) {
    s.recv(recvbuf, recvcount, recvtype, root);
    s.end_round();
    return;
  }
  // Root: everyone else's block by message, its own by copy.
  for (int r = 0; r < p; ++r) {
    const char* block = element(sendbuf, static_cast<size_t>(displs[r]), sendtype);
    if (r != root) s.send(block, sendcounts[r], sendtype, r);
    else if (recvbuf != MPI_IN_PLACE) s.copy(block, sendcounts[r], sendtype, recvbuf, recvcount, recvtype);
  }
  s.end_round();
}

}  // namespace ferry::coll
