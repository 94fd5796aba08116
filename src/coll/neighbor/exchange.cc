// The neighbourhood exchange, one algorithm for all five operations.
//
// Every message is posted at once, in one round: a neighbourhood is usually
// a handful of ranks, and each pair exchanges at most a few blocks, so
// there is nothing to pipeline or combine.
//
// Cost = alpha + max(bytes sent, bytes received) beta, all messages in flight together.
//
// Which block is which when one rank is a neighbour twice (a periodic
// dimension of size 1 or 2): the block a rank sends towards its negative
// neighbour must land in that neighbour's block for its positive one, and
// the reverse (MPI-3.1 §7.6, as MPI-4.0 made explicit). Messages between a
// pair match in the order they were posted, so sends go out in block order
// (per dimension: negative, then positive) and receives are posted with each
// dimension's pair swapped (positive, then negative): the k-th message from
// a peer then lands where it belongs. Graph topologies list each edge at
// both ends in one order, which the same posting keeps.
#include "coll/neighbor/algorithms.h"

#include "base/topology.h"

namespace ferry::coll {

Neighbors neighbors_of(const Communicator& c) {
  Neighbors n;
  n.in = c.topology->in_neighbors(c.rank);
  n.out = c.topology->out_neighbors(c.rank);
  n.cartesian = c.topology->kind == MPI_CART;
  return n;
}

void neighbor_exchange(Schedule& s, const Neighbors& n, const std::function<Block(size_t)>& send_block,
                       const std::function<Block(size_t)>& recv_block) {
  for (size_t k = 0; k < n.in.size(); ++k) {
    size_t i = n.cartesian ? (k ^ 1) : k;
    if (n.in[i] == MPI_PROC_NULL) continue;
    Block b = recv_block(i);
    s.recv(const_cast<void*>(b.data), b.count, b.type, n.in[i]);
  }
  for (size_t j = 0; j < n.out.size(); ++j) {
    if (n.out[j] == MPI_PROC_NULL) continue;
    Block b = send_block(j);
    s.send(b.data, b.count, b.type, n.out[j]);
  }
  s.end_round();
}

}  // namespace ferry::coll
