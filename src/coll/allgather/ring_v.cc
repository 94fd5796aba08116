// Allgatherv around a ring: allgather_ring with a count and a displacement
// per rank.
//
// The only Allgatherv algorithm: with unequal blocks the ring still keeps
// every link busy, and it needs no agreement on sizes beyond the counts
// that every rank already has. Any p works.
//
// Cost = (p-1) * alpha + (p-1) * max_j(n_j) * beta.
#include "coll/allgather/algorithms.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void allgatherv_ring(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                     CountArray recvcounts, DisplArray displs, const Datatype* recvtype) {
  const int p = s.size();
  const int rank = s.rank();
  auto block = [&](int j) { return element(recvbuf, static_cast<size_t>(displs[j]), recvtype); };

  // Phase 1: this rank's own block into its place.
  if (sendbuf != MPI_IN_PLACE) {
    s.copy(sendbuf, sendcount, sendtype, block(rank), recvcounts[rank], recvtype);
    s.end_round();
  }

  // Phase 2: in step i, pass block rank - i to the right and receive block
  // rank - i - 1 from the left.
  const int left = (rank - 1 + p) % p, right = (rank + 1) % p;
  for (int i = 0; i < p - 1; ++i) {
    int in = (rank - i - 1 + 2 * p) % p, out = (rank - i + p) % p;
    s.recv(block(in), recvcounts[in], recvtype, left);
    s.send(block(out), recvcounts[out], recvtype, right);
    s.end_round();
  }
}

}  // namespace ferry::coll
