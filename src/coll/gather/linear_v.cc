// Gatherv, linear: every rank sends its block straight to the root.
//
// The only Gatherv algorithm: with a count per rank a tree would need every
// inner rank to know its subtree's counts, which only the root has. The
// root posts all p-1 receives in one round, straight into recvbuf.
//
// Cost = (p-1) * alpha + n * beta at the root, n the gathered bytes.
#include "coll/gather/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void gatherv_linear(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root) {
  const int p = s.size();
  const int rank = s.rank();

  if (rank != root) {
    s.send(sendbuf, sendcount, sendtype, root);
    s.end_round();
    return;
  }
  // Root: its own block by copy, everyone else's by message.
  for (int r = 0; r < p; ++r) {
    char* block = element(recvbuf, static_cast<size_t>(displs[r]), recvtype);
    if (r != root) s.recv(block, recvcounts[r], recvtype, r);
    else if (sendbuf != MPI_IN_PLACE) s.copy(sendbuf, sendcount, sendtype, block, recvcounts[r], recvtype);
  }
  s.end_round();
}

}  // namespace ferry::coll
