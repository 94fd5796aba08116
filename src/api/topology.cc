// Process topologies (MPI-3.1 §7): MPI_Dims_create, the Cartesian, graph and
// distributed-graph constructors and queries, MPI_Topo_test.
//
// Checked here: the communicator and, for queries, that it carries the right
// kind of topology (MPI_ERR_TOPOLOGY); ndims, dims and periods (MPI_ERR_DIMS,
// MPI_ERR_ARG: a grid larger than the communicator); ranks, degrees and
// neighbours inside the communicator (MPI_ERR_RANK, MPI_ERR_ARG); array
// arguments not NULL where they are read or written. `reorder` is accepted
// and ranks keep their order (README, "Process topologies").
#include <algorithm>
#include <vector>

#include "api/api.h"
#include "base/topology.h"
#include "runtime/comm_create.h"

using namespace ferry;

namespace {

MPI_Comm handle_of(const Communicator* c) { return c != nullptr ? c->handle : MPI_COMM_NULL; }

// The communicator's topology if it is of `kind` (MPI_UNDEFINED: any kind).
const Topology* topology_of(api::Call& call, Communicator* c, int kind) {
  if (c == nullptr || !call.ok()) return nullptr;
  const Topology* t = c->topology.get();
  static const char* names[] = {"", "graph", "Cartesian", "distributed graph"};
  if (t == nullptr || (kind != MPI_UNDEFINED && t->kind != kind)) {
    call.fail(MPI_ERR_TOPOLOGY, "the communicator has no %s topology", kind == MPI_UNDEFINED ? "process" : names[kind]);
    return nullptr;
  }
  return t;
}

bool check_array(api::Call& call, const void* array, int n, const char* argument) {
  if (!call.ok()) return false;
  if (array == nullptr && n > 0) return call.fail(MPI_ERR_ARG, "%s is NULL", argument);
  return true;
}

// ndims, dims and periods of a grid that must fit in `size` ranks.
bool check_grid(api::Call& call, int ndims, const int dims[], const int periods[], int size) {
  if (!call.ok()) return false;
  if (ndims < 0) return call.fail(MPI_ERR_DIMS, "invalid ndims %d (must be >= 0)", ndims);
  if (!check_array(call, dims, ndims, "dims") || !check_array(call, periods, ndims, "periods")) return false;
  long long cells = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return call.fail(MPI_ERR_DIMS, "dims[%d] is %d (must be > 0)", i, dims[i]);
    cells *= dims[i];
    if (cells > size)
      return call.fail(MPI_ERR_ARG, "the grid has more cells than the communicator's %d ranks", size);
  }
  return true;
}

bool check_neighbor_ranks(api::Call& call, const int ranks[], int n, int size, const char* argument) {
  if (!check_array(call, ranks, n, argument)) return false;
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= size)
      return call.fail(MPI_ERR_RANK, "%s[%d] is %d (the communicator has %d ranks)", argument, i, ranks[i], size);
  return true;
}

bool check_weights(api::Call& call, const int weights[], int n, const char* argument) {
  if (!call.ok()) return false;
  if (weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY) return true;
  if (weights == nullptr && n > 0) return call.fail(MPI_ERR_ARG, "%s is NULL (MPI_UNWEIGHTED says none)", argument);
  for (int i = 0; i < n; ++i)
    if (weights[i] < 0) return call.fail(MPI_ERR_ARG, "%s[%d] is %d (must be >= 0)", argument, i, weights[i]);
  return true;
}

// Fills out[0..max) from `values` (as many as fit).
void copy_out(const std::vector<int>& values, int max, int out[]) {
  for (size_t i = 0; i < values.size() && static_cast<int>(i) < max; ++i) out[i] = values[i];
}

}  // namespace

extern "C" int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  api::Call call("MPI_Dims_create");
  if (!call.initialized() || !check_array(call, dims, ndims, "dims")) return call.raise();
  return call.result(topology::dims_create(nnodes, ndims, dims));
}
FERRY_ENTRY(Dims_create)

extern "C" int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                                MPI_Comm* comm_cart) {
  api::Call call("MPI_Cart_create");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(comm_cart, "comm_cart") || !check_grid(call, ndims, dims, periods, c->size))
    return call.raise();
  (void)reorder;
  Communicator* created = nullptr;
  std::vector<bool> wrap(static_cast<size_t>(ndims));
  for (int i = 0; i < ndims; ++i) wrap[static_cast<size_t>(i)] = periods[i] != 0;
  if (Err e = communicators::cart_create(c, std::vector<int>(dims, dims + ndims), std::move(wrap), &created))
    return call.result(std::move(e));
  *comm_cart = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Cart_create)

extern "C" int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  api::Call call("MPI_Cart_map");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(newrank, "newrank") || !check_grid(call, ndims, dims, periods, c->size))
    return call.raise();
  int cells = 1;
  for (int i = 0; i < ndims; ++i) cells *= dims[i];
  *newrank = c->rank < cells ? c->rank : MPI_UNDEFINED;  // ranks keep their order
  return MPI_SUCCESS;
}
FERRY_ENTRY(Cart_map)

extern "C" int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  api::Call call("MPI_Cartdim_get");
  const Topology* t = topology_of(call, call.intracomm(comm), MPI_CART);
  if (t == nullptr || !call.not_null(ndims, "ndims")) return call.raise();
  *ndims = static_cast<int>(t->dims.size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Cartdim_get)

extern "C" int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  api::Call call("MPI_Cart_get");
  Communicator* c = call.intracomm(comm);
  const Topology* t = topology_of(call, c, MPI_CART);
  if (t == nullptr) return call.raise();
  int n = static_cast<int>(t->dims.size());
  if (maxdims < 0) call.fail(MPI_ERR_ARG, "invalid maxdims %d", maxdims);
  int shown = maxdims < n ? maxdims : n;
  if (!check_array(call, dims, shown, "dims") || !check_array(call, periods, shown, "periods") ||
      !check_array(call, coords, shown, "coords"))
    return call.raise();
  std::vector<int> mine = t->coords_of(c->rank);
  for (int i = 0; i < shown; ++i) {
    dims[i] = t->dims[static_cast<size_t>(i)];
    periods[i] = t->periods[static_cast<size_t>(i)] ? 1 : 0;
    coords[i] = mine[static_cast<size_t>(i)];
  }
  return MPI_SUCCESS;
}
FERRY_ENTRY(Cart_get)

extern "C" int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  api::Call call("MPI_Cart_rank");
  const Topology* t = topology_of(call, call.intracomm(comm), MPI_CART);
  if (t == nullptr || !call.not_null(rank, "rank") ||
      !check_array(call, coords, static_cast<int>(t->dims.size()), "coords"))
    return call.raise();
  return call.result(t->rank_of(coords, rank));
}
FERRY_ENTRY(Cart_rank)

extern "C" int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  api::Call call("MPI_Cart_coords");
  Communicator* c = call.intracomm(comm);
  const Topology* t = topology_of(call, c, MPI_CART);
  if (t == nullptr) return call.raise();
  if (rank < 0 || rank >= c->size) call.fail(MPI_ERR_RANK, "invalid rank %d (communicator size %d)", rank, c->size);
  int n = static_cast<int>(t->dims.size());
  if (maxdims < n) call.fail(MPI_ERR_ARG, "maxdims %d is less than the grid's %d dimensions", maxdims, n);
  if (!check_array(call, coords, n, "coords")) return call.raise();
  copy_out(t->coords_of(rank), n, coords);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Cart_coords)

extern "C" int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  api::Call call("MPI_Cart_shift");
  Communicator* c = call.intracomm(comm);
  const Topology* t = topology_of(call, c, MPI_CART);
  if (t == nullptr || !call.not_null(rank_source, "rank_source") || !call.not_null(rank_dest, "rank_dest"))
    return call.raise();
  if (direction < 0 || direction >= static_cast<int>(t->dims.size())) {
    call.fail(MPI_ERR_ARG, "invalid direction %d (the grid has %zu dimensions)", direction, t->dims.size());
    return call.raise();
  }
  t->shift(c->rank, direction, disp, rank_source, rank_dest);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Cart_shift)

extern "C" int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  api::Call call("MPI_Cart_sub");
  Communicator* c = call.intracomm(comm);
  const Topology* t = topology_of(call, c, MPI_CART);
  if (t == nullptr || !call.not_null(newcomm, "newcomm") ||
      !check_array(call, remain_dims, static_cast<int>(t->dims.size()), "remain_dims"))
    return call.raise();
  std::vector<bool> remain(t->dims.size());
  for (size_t i = 0; i < remain.size(); ++i) remain[i] = remain_dims[i] != 0;
  Communicator* created = nullptr;
  if (Err e = communicators::cart_sub(c, remain, &created)) return call.result(std::move(e));
  *newcomm = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Cart_sub)

namespace {

// index[] and edges[] of MPI_Graph_create / MPI_Graph_map.
bool check_graph(api::Call& call, int nnodes, const int index[], const int edges[], int size) {
  if (!call.ok()) return false;
  if (nnodes < 0 || nnodes > size)
    return call.fail(MPI_ERR_ARG, "invalid nnodes %d (the communicator has %d ranks)", nnodes, size);
  if (!check_array(call, index, nnodes, "index")) return false;
  for (int i = 0; i < nnodes; ++i)
    if (index[i] < (i == 0 ? 0 : index[i - 1]))
      return call.fail(MPI_ERR_ARG, "index[%d] is %d, less than the entry before it", i, index[i]);
  int nedges = nnodes == 0 ? 0 : index[nnodes - 1];
  if (!check_array(call, edges, nedges, "edges")) return false;
  for (int i = 0; i < nedges; ++i)
    if (edges[i] < 0 || edges[i] >= nnodes)
      return call.fail(MPI_ERR_ARG, "edges[%d] is %d (the graph has %d nodes)", i, edges[i], nnodes);
  return true;
}

}  // namespace

extern "C" int PMPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                                 MPI_Comm* comm_graph) {
  api::Call call("MPI_Graph_create");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(comm_graph, "comm_graph") || !check_graph(call, nnodes, index, edges, c->size))
    return call.raise();
  (void)reorder;
  int nedges = nnodes == 0 ? 0 : index[nnodes - 1];
  Communicator* created = nullptr;
  if (Err e = communicators::graph_create(c, std::vector<int>(index, index + nnodes),
                                          std::vector<int>(edges, edges + nedges), &created))
    return call.result(std::move(e));
  *comm_graph = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Graph_create)

extern "C" int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  api::Call call("MPI_Graph_map");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(newrank, "newrank") || !check_graph(call, nnodes, index, edges, c->size))
    return call.raise();
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Graph_map)

extern "C" int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  api::Call call("MPI_Graphdims_get");
  const Topology* t = topology_of(call, call.intracomm(comm), MPI_GRAPH);
  if (t == nullptr || !call.not_null(nnodes, "nnodes") || !call.not_null(nedges, "nedges")) return call.raise();
  *nnodes = static_cast<int>(t->index.size());
  *nedges = static_cast<int>(t->edges.size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Graphdims_get)

extern "C" int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  api::Call call("MPI_Graph_get");
  const Topology* t = topology_of(call, call.intracomm(comm), MPI_GRAPH);
  if (t == nullptr) return call.raise();
  int ni = std::min(maxindex, static_cast<int>(t->index.size()));
  int ne = std::min(maxedges, static_cast<int>(t->edges.size()));
  if (!check_array(call, index, ni, "index") || !check_array(call, edges, ne, "edges")) return call.raise();
  copy_out(t->index, ni, index);
  copy_out(t->edges, ne, edges);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Graph_get)

extern "C" int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  api::Call call("MPI_Graph_neighbors_count");
  Communicator* c = call.intracomm(comm);
  const Topology* t = topology_of(call, c, MPI_GRAPH);
  if (t == nullptr || !call.not_null(nneighbors, "nneighbors")) return call.raise();
  if (rank < 0 || rank >= static_cast<int>(t->index.size())) {
    call.fail(MPI_ERR_RANK, "invalid rank %d (the graph has %zu nodes)", rank, t->index.size());
    return call.raise();
  }
  *nneighbors = static_cast<int>(t->graph_neighbors(rank).size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Graph_neighbors_count)

extern "C" int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  api::Call call("MPI_Graph_neighbors");
  Communicator* c = call.intracomm(comm);
  const Topology* t = topology_of(call, c, MPI_GRAPH);
  if (t == nullptr) return call.raise();
  if (rank < 0 || rank >= static_cast<int>(t->index.size())) {
    call.fail(MPI_ERR_RANK, "invalid rank %d (the graph has %zu nodes)", rank, t->index.size());
    return call.raise();
  }
  std::vector<int> n = t->graph_neighbors(rank);
  int shown = std::min(maxneighbors, static_cast<int>(n.size()));
  if (!check_array(call, neighbors, shown, "neighbors")) return call.raise();
  copy_out(n, shown, neighbors);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Graph_neighbors)

extern "C" int PMPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree, const int destinations[],
                                               const int destweights[], MPI_Info info, int reorder,
                                               MPI_Comm* comm_dist_graph) {
  api::Call call("MPI_Dist_graph_create_adjacent");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(comm_dist_graph, "comm_dist_graph")) return call.raise();
  if (indegree < 0 || outdegree < 0) call.fail(MPI_ERR_ARG, "invalid degree %d (must be >= 0)", indegree < 0 ? indegree : outdegree);
  if (!check_neighbor_ranks(call, sources, indegree, c->size, "sources") ||
      !check_neighbor_ranks(call, destinations, outdegree, c->size, "destinations") ||
      !check_weights(call, sourceweights, indegree, "sourceweights") ||
      !check_weights(call, destweights, outdegree, "destweights"))
    return call.raise();
  (void)info, (void)reorder;
  Topology t;
  t.sources.assign(sources, sources + indegree);
  t.destinations.assign(destinations, destinations + outdegree);
  t.weighted = sourceweights != MPI_UNWEIGHTED;
  if (t.weighted && sourceweights != MPI_WEIGHTS_EMPTY) t.source_weights.assign(sourceweights, sourceweights + indegree);
  if (t.weighted && destweights != MPI_WEIGHTS_EMPTY && destweights != MPI_UNWEIGHTED)
    t.destination_weights.assign(destweights, destweights + outdegree);
  Communicator* created = nullptr;
  if (Err e = communicators::dist_graph_create_adjacent(c, std::move(t), &created)) return call.result(std::move(e));
  *comm_dist_graph = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Dist_graph_create_adjacent)

extern "C" int PMPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                                      const int destinations[], const int weights[], MPI_Info info, int reorder,
                                      MPI_Comm* comm_dist_graph) {
  api::Call call("MPI_Dist_graph_create");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(comm_dist_graph, "comm_dist_graph")) return call.raise();
  if (n < 0) call.fail(MPI_ERR_ARG, "invalid n %d (must be >= 0)", n);
  if (!check_neighbor_ranks(call, sources, n, c->size, "sources") || !check_array(call, degrees, n, "degrees"))
    return call.raise();
  int total = 0;
  for (int i = 0; i < n && call.ok(); ++i) {
    if (degrees[i] < 0) call.fail(MPI_ERR_ARG, "degrees[%d] is %d (must be >= 0)", i, degrees[i]);
    total += degrees[i];
  }
  if (!check_neighbor_ranks(call, destinations, total, c->size, "destinations") ||
      !check_weights(call, weights, total, "weights"))
    return call.raise();
  (void)info, (void)reorder;
  bool weighted = weights != MPI_UNWEIGHTED;
  std::vector<communicators::Edge> edges;
  edges.reserve(static_cast<size_t>(total));
  for (int i = 0, k = 0; i < n; ++i)
    for (int d = 0; d < degrees[i]; ++d, ++k)
      edges.push_back({sources[i], destinations[k], weighted && weights != MPI_WEIGHTS_EMPTY ? weights[k] : 1});
  Communicator* created = nullptr;
  if (Err e = communicators::dist_graph_create(c, edges, weighted, &created)) return call.result(std::move(e));
  *comm_dist_graph = handle_of(created);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Dist_graph_create)

extern "C" int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  api::Call call("MPI_Dist_graph_neighbors_count");
  const Topology* t = topology_of(call, call.intracomm(comm), MPI_UNDEFINED);
  if (t == nullptr || !call.not_null(indegree, "indegree") || !call.not_null(outdegree, "outdegree") ||
      !call.not_null(weighted, "weighted"))
    return call.raise();
  if (t->kind != MPI_DIST_GRAPH) {
    call.fail(MPI_ERR_TOPOLOGY, "the communicator has no distributed graph topology");
    return call.raise();
  }
  *indegree = static_cast<int>(t->sources.size());
  *outdegree = static_cast<int>(t->destinations.size());
  *weighted = t->weighted ? 1 : 0;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Dist_graph_neighbors_count)

extern "C" int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                                         int maxoutdegree, int destinations[], int destweights[]) {
  api::Call call("MPI_Dist_graph_neighbors");
  const Topology* t = topology_of(call, call.intracomm(comm), MPI_DIST_GRAPH);
  if (t == nullptr) return call.raise();
  int in = std::min(maxindegree, static_cast<int>(t->sources.size()));
  int out = std::min(maxoutdegree, static_cast<int>(t->destinations.size()));
  if (!check_array(call, sources, in, "sources") || !check_array(call, destinations, out, "destinations"))
    return call.raise();
  copy_out(t->sources, in, sources);
  copy_out(t->destinations, out, destinations);
  // Weights only where the graph has them and the caller asked.
  if (t->weighted && sourceweights != MPI_UNWEIGHTED && sourceweights != nullptr)
    copy_out(t->source_weights, in, sourceweights);
  if (t->weighted && destweights != MPI_UNWEIGHTED && destweights != nullptr)
    copy_out(t->destination_weights, out, destweights);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Dist_graph_neighbors)

extern "C" int PMPI_Topo_test(MPI_Comm comm, int* status) {
  api::Call call("MPI_Topo_test");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(status, "status")) return call.raise();
  *status = c->topology ? c->topology->kind : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Topo_test)
