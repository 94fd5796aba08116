// Allgather by Bruck's algorithm (Bruck et al. 1997).
//
// Chosen for short and medium messages on communicators that are not a
// power of two: ceil(log2 p) steps for any p, at the price of a local
// rotation at the end. The blocks are gathered packed in a scratch buffer
// in the order rank, rank + 1, ...; in the step with distance d a rank
// receives from rank + d the first min(d, p - d) blocks that rank holds.
//
// Cost = ceil(log2 p) * alpha + (p-1)/p * n * beta, plus n bytes copied.
#include <algorithm>

#include "coll/allgather/algorithms.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void allgather_bruck(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                     MPI_Count recvcount, const Datatype* recvtype) {
  const int p = s.size();
  const int rank = s.rank();
  const size_t block_bytes = recvtype->bytes(recvcount);
  char* gathered = static_cast<char*>(s.scratch(block_bytes * static_cast<size_t>(p)));
  auto bytes = [&](int blocks) { return static_cast<MPI_Count>(block_bytes * static_cast<size_t>(blocks)); };
  auto block = [&](int j) {
    return element(recvbuf, static_cast<size_t>(j) * static_cast<size_t>(recvcount), recvtype);
  };

  // Phase 1: this rank's block first.
  if (sendbuf == MPI_IN_PLACE) s.copy(block(rank), recvcount, recvtype, gathered, bytes(1), packed_bytes());
  else s.copy(sendbuf, sendcount, sendtype, gathered, bytes(1), packed_bytes());
  s.end_round();

  // Phase 2: ceil(log2 p) steps; after the step with distance d a rank
  // holds the blocks of rank .. rank + 2d - 1.
  for (int d = 1; d < p; d *= 2) {
    const int n = std::min(d, p - d);
    s.recv(gathered + static_cast<size_t>(d) * block_bytes, bytes(n), packed_bytes(), (rank + d) % p);
    s.send(gathered, bytes(n), packed_bytes(), (rank - d + p) % p);
    s.end_round();
  }

  // Phase 3: unrotate: gathered block i belongs to rank (rank + i) mod p.
  s.copy(gathered, bytes(p - rank), packed_bytes(), block(rank), (p - rank) * recvcount, recvtype);
  if (rank > 0) s.copy(gathered + static_cast<size_t>(p - rank) * block_bytes, bytes(rank), packed_bytes(), block(0),
                       rank * recvcount, recvtype);
  s.end_round();
}

}  // namespace ferry::coll
