// Gather and Gatherv, linear: every rank sends its block straight to the
// root, which posts all p-1 receives in one round, straight into recvbuf.
//
// Gatherv's only algorithm: with a count per rank a tree would need every
// inner rank to know its subtree's counts, which only the root has.
// Gather's for long blocks: each block crosses once, where the binomial
// tree forwards half of them through other ranks (select.cc says where).
//
// Cost = (p-1) * alpha + n * beta at the root, n the gathered bytes.
#include "coll/gather/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

namespace {

// Rank r's block lies count_of(r) elements of recvtype from element
// displ_of(r) of recvbuf.
template <typename CountOf, typename DisplOf>
void gather_blocks(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   CountOf count_of, DisplOf displ_of, const Datatype* recvtype, int root) {
  const int p = s.size();
  const int rank = s.rank();

  if (rank != root) {
    s.send(sendbuf, sendcount, sendtype, root);
    s.end_round();
    return;
  }
  // Root: its own block by copy, everyone else's by message.
  for (int r = 0; r < p; ++r) {
    char* block = element(recvbuf, static_cast<size_t>(displ_of(r)), recvtype);
    if (r != root) s.recv(block, count_of(r), recvtype, r);
    else if (sendbuf != MPI_IN_PLACE) s.copy(sendbuf, sendcount, sendtype, block, count_of(r), recvtype);
  }
  s.end_round();
}

}  // namespace

void gather_linear(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   MPI_Count recvcount, const Datatype* recvtype, int root) {
  gather_blocks(
      s, sendbuf, sendcount, sendtype, recvbuf, [&](int) { return recvcount; },
      [&](int r) { return static_cast<MPI_Count>(r) * recvcount; }, recvtype, root);
}

void gatherv_linear(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root) {
  gather_blocks(
      s, sendbuf, sendcount, sendtype, recvbuf, [&](int r) { return recvcounts[r]; },
      [&](int r) { return displs[r]; }, recvtype, root);
}

}  // namespace ferry::coll
