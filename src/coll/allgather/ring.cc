// Allgather around a ring.
//
// Chosen for long messages: every step moves one block over every link at
// once, and each rank only ever talks to its two neighbours, so no link
// carries more than its share. Any p works.
//
// Cost = (p-1) * alpha + (p-1)/p * n * beta, n the gathered bytes.
#include "coll/allgather/algorithms.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void allgather_ring(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    MPI_Count recvcount, const Datatype* recvtype) {
  const int p = s.size();
  const int rank = s.rank();
  auto block = [&](int j) {
    return element(recvbuf, static_cast<size_t>(j) * static_cast<size_t>(recvcount), recvtype);
  };

  // Phase 1: this rank's own block into its place.
  if (sendbuf != MPI_IN_PLACE) {
    s.copy(sendbuf, sendcount, sendtype, block(rank), recvcount, recvtype);
    s.end_round();
  }

  // Phase 2: in step i, pass block rank - i to the right and receive block
  // rank - i - 1 from the left (the block the left neighbour got in step
  // i - 1).
  const int left = (rank - 1 + p) % p, right = (rank + 1) % p;
  for (int i = 0; i < p - 1; ++i) {
    s.recv(block((rank - i - 1 + 2 * p) % p), recvcount, recvtype, left);
    s.send(block((rank - i + p) % p), recvcount, recvtype, right);
    s.end_round();
  }
}

}  // namespace ferry::coll
