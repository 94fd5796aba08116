// Alltoall by pairwise exchange.
//
// Chosen for all but tiny blocks: p-1 steps, each moving one block to one
// peer and one from another, so every block travels once, directly, and a
// rank never has more than one message in each direction in flight (no
// incast at any rank). Any p works (coll/alltoall/pairwise.h).
//
// Cost = (p-1) * (alpha + n/p * beta), n the bytes one rank sends.
#include "coll/alltoall/algorithms.h"
#include "coll/alltoall/pairwise.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

void alltoall_pairwise(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                       MPI_Count recvcount, const Datatype* recvtype) {
  const int p = s.size();
  const int rank = s.rank();
  auto recv_block = [&](int j) { return element(recvbuf, static_cast<size_t>(j) * recvcount, recvtype); };

  // Phase 1: the block to itself. With MPI_IN_PLACE it is already there,
  // but every other block would be overwritten before it is sent: send them
  // from a packed copy instead.
  const void* out = sendbuf;
  MPI_Count out_count = sendcount;
  const Datatype* out_type = sendtype;
  if (sendbuf == MPI_IN_PLACE) {
    const size_t block_bytes = recvtype->bytes(recvcount);
    char* copy = static_cast<char*>(s.scratch(block_bytes * p));
    s.copy(recvbuf, p * recvcount, recvtype, copy, static_cast<MPI_Count>(block_bytes * p), packed_bytes());
    out = copy;
    out_count = static_cast<MPI_Count>(block_bytes);
    out_type = packed_bytes();
  } else {
    s.copy(element(sendbuf, static_cast<size_t>(rank) * sendcount, sendtype), sendcount, sendtype,
           recv_block(rank), recvcount, recvtype);
  }
  s.end_round();

  // Phase 2: p-1 exchanges.
  for (int i = 1; i < p; ++i) {
    PairwiseStep step = pairwise_step(rank, p, i);
    s.recv(recv_block(step.from), recvcount, recvtype, step.from);
    s.send(element(out, static_cast<size_t>(step.to) * out_count, out_type), out_count, out_type, step.to);
    s.end_round();
  }
}

}  // namespace ferry::coll
