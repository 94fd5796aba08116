// Scatter and Scatterv, linear: the root sends every rank its block
// directly, all p-1 sends in one round, straight from sendbuf.
//
// Scatterv's only algorithm: with a count per rank a tree would need every
// inner rank to know its subtree's counts, which only the root has.
// Scatter's for long blocks: each block crosses once, where the binomial
// tree forwards half of them through other ranks (select.cc says where).
//
// Cost = (p-1) * alpha + n * beta at the root, n the scattered bytes.
#include "coll/scatter/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

namespace {

// Rank r's block lies count_of(r) elements of sendtype from element
// displ_of(r) of sendbuf.
template <typename CountOf, typename DisplOf>
void scatter_blocks(Schedule& s, const void* sendbuf, CountOf count_of, DisplOf displ_of, const Datatype* sendtype,
                    void* recvbuf, MPI_Count recvcount, const Datatype* recvtype, int root) {
  const int p = s.size();
  const int rank = s.rank();

  if (rank != root) {
    s.recv(recvbuf, recvcount, recvtype, root);
    s.end_round();
    return;
  }
  // Root: everyone else's block by message, its own by copy.
  for (int r = 0; r < p; ++r) {
    const char* block = element(sendbuf, static_cast<size_t>(displ_of(r)), sendtype);
    if (r != root) s.send(block, count_of(r), sendtype, r);
    else if (recvbuf != MPI_IN_PLACE) s.copy(block, count_of(r), sendtype, recvbuf, recvcount, recvtype);
  }
  s.end_round();
}

}  // namespace

void scatter_linear(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    MPI_Count recvcount, const Datatype* recvtype, int root) {
  scatter_blocks(
      s, sendbuf, [&](int) { return sendcount; }, [&](int r) { return static_cast<MPI_Count>(r) * sendcount; },
      sendtype, recvbuf, recvcount, recvtype, root);
}

void scatterv_linear(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray displs,
                     const Datatype* sendtype, void* recvbuf, MPI_Count recvcount, const Datatype* recvtype, int root) {
  scatter_blocks(
      s, sendbuf, [&](int r) { return sendcounts[r]; }, [&](int r) { return displs[r]; }, sendtype, recvbuf,
      recvcount, recvtype, root);
}

}  // namespace ferry::coll
