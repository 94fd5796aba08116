// Alltoallv by pairwise exchange: alltoall_pairwise with a count and a
// displacement per peer.
//
// The only Alltoallv algorithm: with unequal blocks Bruck's packing would
// need every rank to know every other rank's counts. Every pair exchanges
// a message, empty ones too, so that ranks that disagree on a count see a
// truncation rather than a hang. Any p works.
//
// Cost = (p-1) * alpha + sum of the blocks * beta.
#include <vector>

#include "coll/alltoall/algorithms.h"
#include "coll/alltoall/pairwise.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void alltoallv_pairwise(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                        const Datatype* sendtype, void* recvbuf, CountArray recvcounts, DisplArray rdispls,
                        const Datatype* recvtype) {
  const int p = s.size();
  const int rank = s.rank();
  auto recv_block = [&](int j) { return element(recvbuf, static_cast<size_t>(rdispls[j]), recvtype); };
  std::vector<const void*> send_from(p);
  std::vector<MPI_Count> send_count(p);
  const Datatype* send_type = sendtype;

  // Phase 1: the block to itself. With MPI_IN_PLACE it is already there;
  // the others are sent from a packed copy, since receiving overwrites them.
  if (sendbuf == MPI_IN_PLACE) {
    size_t total = 0;
    for (int j = 0; j < p; ++j) total += recvtype->bytes(recvcounts[j]);
    char* copy = static_cast<char*>(s.scratch(total));
    for (int j = 0; j < p; ++j) {
      MPI_Count bytes = static_cast<MPI_Count>(recvtype->bytes(recvcounts[j]));
      if (j != rank) s.copy(recv_block(j), recvcounts[j], recvtype, copy, bytes, packed_bytes());
      send_from[j] = copy;
      send_count[j] = bytes;
      copy += bytes;
    }
    send_type = packed_bytes();
  } else {
    for (int j = 0; j < p; ++j) {
      send_from[j] = element(sendbuf, static_cast<size_t>(sdispls[j]), sendtype);
      send_count[j] = sendcounts[j];
    }
    s.copy(send_from[rank], sendcounts[rank], sendtype, recv_block(rank), recvcounts[rank], recvtype);
  }
  s.end_round();

  // Phase 2: p-1 exchanges.
  for (int i = 1; i < p; ++i) {
    PairwiseStep step = pairwise_step(rank, p, i);
    s.recv(recv_block(step.from), recvcounts[step.from], recvtype, step.from);
    s.send(send_from[step.to], send_count[step.to], send_type, step.to);
    s.end_round();
  }
}

}  // namespace ferry::coll
