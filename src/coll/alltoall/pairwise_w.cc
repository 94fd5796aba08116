// Alltoallw by pairwise exchange: alltoallv_pairwise with a datatype per
// peer and displacements in bytes (MPI-3.1 §5.8).
//
// The only Alltoallw algorithm, for the reasons of alltoallv_pairwise.
// Any p works.
//
// Cost = (p-1) * alpha + sum of the blocks * beta.
#include <vector>

#include "coll/alltoall/algorithms.h"
#include "coll/alltoall/pairwise.h"
#include "coll/packed_bytes.h"

namespace ferry::coll {

void alltoallw_pairwise(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                        const Datatype* const sendtypes[], void* recvbuf, CountArray recvcounts,
                        DisplArray rdispls, const Datatype* const recvtypes[]) {
  const int p = s.size();
  const int rank = s.rank();
  auto recv_block = [&](int j) { return static_cast<char*>(recvbuf) + rdispls[j]; };
  std::vector<const void*> send_from(p);
  std::vector<MPI_Count> send_count(p);
  std::vector<const Datatype*> send_type(p);

  // Phase 1: the block to itself. With MPI_IN_PLACE it is already there;
  // the others are sent from a packed copy, since receiving overwrites them.
  if (sendbuf == MPI_IN_PLACE) {
    size_t total = 0;
    for (int j = 0; j < p; ++j) total += recvtypes[j]->bytes(recvcounts[j]);
    char* copy = static_cast<char*>(s.scratch(total));
    for (int j = 0; j < p; ++j) {
      MPI_Count bytes = static_cast<MPI_Count>(recvtypes[j]->bytes(recvcounts[j]));
      if (j != rank) s.copy(recv_block(j), recvcounts[j], recvtypes[j], copy, bytes, packed_bytes());
      send_from[j] = copy;
      send_count[j] = bytes;
      send_type[j] = packed_bytes();
      copy += bytes;
    }
  } else {
    for (int j = 0; j < p; ++j) {
      send_from[j] = static_cast<const char*>(sendbuf) + sdispls[j];
      send_count[j] = sendcounts[j];
      send_type[j] = sendtypes[j];
    }
    s.copy(send_from[rank], sendcounts[rank], sendtypes[rank], recv_block(rank), recvcounts[rank], recvtypes[rank]);
  }
  s.end_round();

  // Phase 2: p-1 exchanges.
  for (int i = 1; i < p; ++i) {
    PairwiseStep step = pairwise_step(rank, p, i);
    s.recv(recv_block(step.from), recvcounts[step.from], recvtypes[step.from], step.from);
    s.send(send_from[step.to], send_count[step.to], send_type[step.to], step.to);
    s.end_round();
  }
}

}  // namespace ferry::coll
