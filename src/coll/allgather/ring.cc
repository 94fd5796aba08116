// Allgather around a ring.
//
// Chosen for long messages: every step moves one block over every link at
// once, and each rank only ever talks to its two neighbours, so no link
// carries more than its share. Any p >= 2 (one rank never reaches here:
// coll/all_ranks.cc copies its block itself, and step 0 is where this
// copies it).
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

  // In step i, pass block rank - i to the right and receive block
  // rank - i - 1 from the left (the block the left neighbour got in step
  // i - 1). Step 0 sends this rank's block from sendbuf as it lies and
  // copies it into place as the step's local work, so the copy costs no
  // round of its own (issue 29: at 2 ranks the allgather is that one step).
  const int left = (rank - 1 + p) % p, right = (rank + 1) % p;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  for (int i = 0; i < p - 1; ++i) {
    s.recv(block((rank - i - 1 + 2 * p) % p), recvcount, recvtype, left);
    if (i == 0 && !in_place) {
      s.send(sendbuf, sendcount, sendtype, right);
      s.copy(sendbuf, sendcount, sendtype, block(rank), recvcount, recvtype);
    } else {
      s.send(block((rank - i + p) % p), recvcount, recvtype, right);
    }
    s.end_round();
  }
}

}  // namespace ferry::coll
