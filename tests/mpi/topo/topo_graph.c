/*
 * Graph and distributed-graph topologies (MPI-3.1 §7.5.3-7.5.5): a ring made
 * with MPI_Graph_create and queried back, the same ring with
 * MPI_Dist_graph_create_adjacent (weighted), and a graph that rank 0 alone
 * describes with MPI_Dist_graph_create, which every rank must then learn its
 * own edges of (with their weights). Misuse returns the right classes.
 */
#define TEST_NAME "topo_graph"
#include "mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int left = (rank - 1 + size) % size, right = (rank + 1) % size;

  /* A ring: node i's neighbours are i-1 and i+1. */
  int *index = mt_malloc(sizeof(int) * (size_t)size), *edges = mt_malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < size; i++) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i - 1 + size) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  MPI_Comm ring;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &ring));
  int status = -1, nnodes = -1, nedges = -1, count = -1, nb[2] = {-1, -1};
  CHECK_MPI(MPI_Topo_test(ring, &status));
  CHECK(status == MPI_GRAPH, "Topo_test: %d, want MPI_GRAPH", status);
  CHECK_MPI(MPI_Graphdims_get(ring, &nnodes, &nedges));
  CHECK(nnodes == size && nedges == 2 * size, "Graphdims_get: %d nodes %d edges", nnodes, nedges);
  int *gi = mt_malloc(sizeof(int) * (size_t)size), *ge = mt_malloc(sizeof(int) * 2 * (size_t)size);
  CHECK_MPI(MPI_Graph_get(ring, size, 2 * size, gi, ge));
  for (int i = 0; i < size; i++) CHECK(gi[i] == index[i], "Graph_get index[%d] = %d", i, gi[i]);
  for (int i = 0; i < 2 * size; i++) CHECK(ge[i] == edges[i], "Graph_get edges[%d] = %d", i, ge[i]);
  CHECK_MPI(MPI_Graph_neighbors_count(ring, rank, &count));
  CHECK(count == 2, "Graph_neighbors_count: %d", count);
  CHECK_MPI(MPI_Graph_neighbors(ring, rank, 2, nb));
  CHECK(nb[0] == left && nb[1] == right, "Graph_neighbors: %d %d", nb[0], nb[1]);
  int mapped = -2;
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &mapped));
  CHECK(mapped == rank, "Graph_map: %d", mapped);
  int cls, code = MPI_Graph_neighbors(ring, size, 2, nb);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_RANK, "Graph_neighbors of a node the graph lacks: class %d", cls);
  /* An edge to a node that does not exist: erroneous; Ferry says so
   * (MPICH, built without its argument checks, accepts it). */
  MPI_Comm broken;
  if (mt_is_ferry()) {
    edges[0] = size;
    code = MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &broken);
    MPI_Error_class(code, &cls);
    CHECK(cls == MPI_ERR_ARG, "Graph_create with an edge to node %d: class %d", size, cls);
  }

  /* The same ring, distributed and weighted: in from the left (weight =
   * left's rank), out to the right (weight = my rank). */
  MPI_Comm dring;
  int src[1] = {left}, srcw[1] = {left}, dst[1] = {right}, dstw[1] = {rank};
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, srcw, 1, dst, dstw, MPI_INFO_NULL, 0, &dring));
  int indeg = -1, outdeg = -1, weighted = -1;
  CHECK_MPI(MPI_Topo_test(dring, &status));
  CHECK(status == MPI_DIST_GRAPH, "Topo_test: %d, want MPI_DIST_GRAPH", status);
  CHECK_MPI(MPI_Dist_graph_neighbors_count(dring, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1 && outdeg == 1 && weighted, "neighbors_count: %d %d %d", indeg, outdeg, weighted);
  int s = -1, sw = -1, d = -1, dw = -1;
  CHECK_MPI(MPI_Dist_graph_neighbors(dring, 1, &s, &sw, 1, &d, &dw));
  CHECK(s == left && sw == left && d == right && dw == rank, "adjacent: %d(%d) -> me -> %d(%d)", s, sw, d, dw);

  /* Rank 0 names every edge i -> i+1 with weight 10 i, and i -> i itself
   * (weight 1) for even i. Each rank must learn its own. */
  int n = rank == 0 ? size : 0;
  int *sources = mt_malloc(sizeof(int) * (size_t)size), *degrees = mt_malloc(sizeof(int) * (size_t)size);
  int *dests = mt_malloc(sizeof(int) * 2 * (size_t)size), *weights = mt_malloc(sizeof(int) * 2 * (size_t)size);
  int k = 0;
  for (int i = 0; i < n; i++) {
    sources[i] = i;
    degrees[i] = i % 2 == 0 ? 2 : 1;
    dests[k] = (i + 1) % size;
    weights[k++] = 10 * i;
    if (i % 2 == 0) {
      dests[k] = i;
      weights[k++] = 1;
    }
  }
  MPI_Comm g;
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, weights, MPI_INFO_NULL, 0, &g));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
  int self_loop = rank % 2 == 0;
  CHECK(indeg == 1 + self_loop && outdeg == 1 + self_loop && weighted, "named by rank 0: in %d out %d weighted %d",
        indeg, outdeg, weighted);
  int ins[2], insw[2], outs[2], outsw[2];
  CHECK_MPI(MPI_Dist_graph_neighbors(g, 2, ins, insw, 2, outs, outsw));
  /* In rank 0's order: mine to the right first, then my self-loop. */
  CHECK(outs[0] == right && outsw[0] == 10 * rank, "out-edge %d (%d)", outs[0], outsw[0]);
  if (self_loop) CHECK(outs[1] == rank && outsw[1] == 1, "self-loop out %d (%d)", outs[1], outsw[1]);
  int found_left = 0, found_self = 0;
  for (int i = 0; i < indeg; i++) {
    if (ins[i] == left && insw[i] == 10 * left && !found_left) found_left = 1;
    else if (ins[i] == rank && insw[i] == 1) found_self = 1;
  }
  CHECK(found_left, "the in-edge from the left (weight %d) is missing", 10 * left);
  CHECK(found_self == self_loop, "self-loop as an in-edge: %d, want %d", found_self, self_loop);

  code = MPI_Dist_graph_neighbors_count(ring, &indeg, &outdeg, &weighted);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "Dist_graph_neighbors_count on a graph topology: class %d", cls);
  if (mt_is_ferry()) {
    int bad_src[1] = {size};
    code = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, bad_src, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &broken);
    MPI_Error_class(code, &cls);
    CHECK(cls == MPI_ERR_RANK, "a source outside the communicator: class %d", cls);
  }

  MPI_Comm_free(&g);
  MPI_Comm_free(&dring);
  MPI_Comm_free(&ring);
  free(index), free(edges), free(gi), free(ge), free(sources), free(degrees), free(dests), free(weights);
  mt_pass();
  MPI_Finalize();
  return 0;
}
