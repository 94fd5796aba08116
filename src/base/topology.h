// Process topologies (MPI-3.1 §7): the structure a communicator may carry,
// and the arithmetic on it. A topology is fixed once made, so communicators
// share it (MPI_Comm_dup keeps it); creating one is collective and lives in
// the runtime (runtime/comm_create.h).
#pragma once

#include <memory>
#include <vector>

#include "base/error.h"
#include "mpi.h"

namespace ferry {

struct Topology {
  int kind = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH

  // MPI_CART: row-major (the last dimension varies fastest), as MPI-3.1 §7.5.1.
  std::vector<int> dims;
  std::vector<bool> periods;

  // MPI_GRAPH: the whole graph, as MPI_Graph_create took it. Node i's
  // neighbours are edges[index[i-1] .. index[i]) (index[-1] = 0).
  std::vector<int> index;
  std::vector<int> edges;

  // MPI_DIST_GRAPH: this process's edges only, in the order given.
  std::vector<int> sources;
  std::vector<int> source_weights;
  std::vector<int> destinations;
  std::vector<int> destination_weights;
  bool weighted = false;

  // Cartesian arithmetic. Coordinates of a rank, and the rank of
  // coordinates (wrapped in periodic dimensions; MPI_ERR_ARG outside a
  // non-periodic one).
  std::vector<int> coords_of(int rank) const;
  Err rank_of(const int coords[], int* rank) const;
  int cart_size() const;
  // MPI_Cart_shift: the ranks `displacement` steps back and ahead of `rank`
  // along `direction`; MPI_PROC_NULL off a non-periodic edge.
  void shift(int rank, int direction, int displacement, int* source, int* dest) const;

  // MPI_Graph_neighbors of `rank`.
  std::vector<int> graph_neighbors(int rank) const;

  // The neighbourhood collectives' peers of `rank` (MPI-3.1 §7.6), in
  // buffer-block order: whom block i is received from, and whom block j is
  // sent to. MPI_PROC_NULL entries (cartesian edges) move nothing.
  // Cartesian: for each dimension, the negative then the positive neighbour.
  std::vector<int> in_neighbors(int rank) const;
  std::vector<int> out_neighbors(int rank) const;
};

namespace topology {

// MPI_Dims_create: fills the zero entries of dims[0..ndims) so that their
// product with the others is nnodes, as close to each other as possible,
// in non-increasing order, exactly as MPICH 4.0.2 chooses (dims_create.cc).
Err dims_create(int nnodes, int ndims, int dims[]);

}  // namespace topology
}  // namespace ferry
