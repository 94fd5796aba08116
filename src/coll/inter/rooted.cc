// Gather(v) and scatter(v) on an intercommunicator: between the root and
// every process of the other group, straight, in one round; the root's own
// group takes no part.
//
// Cost = n_remote alpha + (sum of the blocks) beta at the root.
#include "coll/inter/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void inter_gatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {
    for (int j = 0; j < s.remote_size(); ++j)
      s.recv(element(recvbuf, static_cast<size_t>(displs[j]), recvtype), recvcounts[j], recvtype, j);
  } else {
    s.send(sendbuf, sendcount, sendtype, root);
  }
  s.end_round();
}

void inter_scatterv(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray displs,
                    const Datatype* sendtype, void* recvbuf, MPI_Count recvcount, const Datatype* recvtype, int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {
    for (int j = 0; j < s.remote_size(); ++j)
      s.send(element(sendbuf, static_cast<size_t>(displs[j]), sendtype), sendcounts[j], sendtype, j);
  } else {
    s.recv(recvbuf, recvcount, recvtype, root);
  }
  s.end_round();
}

}  // namespace ferry::coll
