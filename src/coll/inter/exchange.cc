// Allgather(v) and alltoall(v,w) on an intercommunicator: every process
// exchanges with every process of the other group, all messages in one
// round. Block j of a buffer is remote rank j's.
//
// Cost = n_remote alpha + (sum of the blocks) beta.
#include "coll/inter/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void inter_allgatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                      CountArray recvcounts, DisplArray displs, const Datatype* recvtype) {
  for (int j = 0; j < s.remote_size(); ++j)
    s.recv(element(recvbuf, static_cast<size_t>(displs[j]), recvtype), recvcounts[j], recvtype, j);
  for (int j = 0; j < s.remote_size(); ++j) s.send(sendbuf, sendcount, sendtype, j);
  s.end_round();
}

void inter_alltoallw(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                     const Datatype* const sendtypes[], void* recvbuf, CountArray recvcounts, DisplArray rdispls,
                     const Datatype* const recvtypes[]) {
  for (int j = 0; j < s.remote_size(); ++j)
    s.recv(static_cast<char*>(recvbuf) + rdispls[j], recvcounts[j], recvtypes[j], j);
  for (int j = 0; j < s.remote_size(); ++j)
    s.send(static_cast<const char*>(sendbuf) + sdispls[j], sendcounts[j], sendtypes[j], j);
  s.end_round();
}

}  // namespace ferry::coll
