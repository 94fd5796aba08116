// Communicators with a process topology (MPI-3.1 §7.5): made like any other
// communicator (comm_create.cc), then given their topology, which is the
// same on every member (it is computed from arguments every member passed
// alike, or, for MPI_Dist_graph_create, exchanged first).
#include <algorithm>
#include <memory>
#include <vector>

#include "base/datatype.h"
#include "base/group.h"
#include "coll/collectives.h"
#include "runtime/comm_create.h"

namespace ferry::communicators {
namespace {

// The first n ranks of the parent, in order; the rest get MPI_COMM_NULL.
Err first_ranks(Communicator* parent, int n, Communicator** out) {
  groups::Members members;
  members.reserve(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) members.push_back(parent->world_rank(r));
  Group* group = groups::make(std::move(members), parent->world_rank(parent->rank));
  Err e = create(parent, group, out);
  groups::release(group);
  return e;
}

void attach(Communicator* c, Topology t) {
  if (c != nullptr) c->topology = std::make_shared<const Topology>(std::move(t));
}

}  // namespace

Err cart_create(Communicator* parent, std::vector<int> dims, std::vector<bool> periods, Communicator** out) {
  Topology t;
  t.kind = MPI_CART;
  t.dims = std::move(dims);
  t.periods = std::move(periods);
  if (Err e = first_ranks(parent, t.cart_size(), out)) return e;
  attach(*out, std::move(t));
  return {};
}

Err cart_sub(Communicator* parent, const std::vector<bool>& remain, Communicator** out) {
  const Topology& grid = *parent->topology;
  // MPI-3.1 §7.5.7: keeping no dimension gives a zero-dimensional grid. Like
  // MPICH (its test topo/cartsuball checks it), that is one grid of one
  // process, as MPI_Cart_create with ndims 0 makes: the parent's rank 0 is
  // in it and every other rank gets MPI_COMM_NULL.
  if (std::none_of(remain.begin(), remain.end(), [](bool r) { return r; })) return cart_create(parent, {}, {}, out);
  // The slice a rank is in: its coordinates in the dropped dimensions.
  std::vector<int> coords = grid.coords_of(parent->rank);
  int color = 0;
  Topology t;
  t.kind = MPI_CART;
  for (size_t d = 0; d < grid.dims.size(); ++d) {
    if (remain[d]) {
      t.dims.push_back(grid.dims[d]);
      t.periods.push_back(grid.periods[d]);
    } else {
      color = color * grid.dims[d] + coords[d];
    }
  }
  // Within a slice, parent rank order is row-major order of the kept
  // coordinates, so the new ranks are the sub-grid's.
  if (Err e = split(parent, color, parent->rank, out)) return e;
  attach(*out, std::move(t));
  return {};
}

Err graph_create(Communicator* parent, std::vector<int> index, std::vector<int> edges, Communicator** out) {
  Topology t;
  t.kind = MPI_GRAPH;
  t.index = std::move(index);
  t.edges = std::move(edges);
  if (Err e = first_ranks(parent, static_cast<int>(t.index.size()), out)) return e;
  attach(*out, std::move(t));
  return {};
}

Err dist_graph_create_adjacent(Communicator* parent, Topology adjacency, Communicator** out) {
  adjacency.kind = MPI_DIST_GRAPH;
  if (Err e = create(parent, parent->group, out)) return e;
  attach(*out, std::move(adjacency));
  return {};
}

Err dist_graph_create(Communicator* parent, const std::vector<Edge>& edges, bool weighted, Communicator** out) {
  // Every edge goes to both its ends: (source, destination, weight, end),
  // where end 0 tells the source it is an out-edge and end 1 tells the
  // destination it is an in-edge (a self-loop is both).
  const int p = parent->size;
  std::vector<std::vector<int>> to(static_cast<size_t>(p));
  for (const Edge& e : edges) {
    for (int end = 0; end < 2; ++end) {
      auto& q = to[static_cast<size_t>(end == 0 ? e.source : e.destination)];
      q.insert(q.end(), {e.source, e.destination, e.weight, end});
    }
  }
  std::vector<int> send_counts(static_cast<size_t>(p)), send_displs(static_cast<size_t>(p)), flat;
  for (int r = 0; r < p; ++r) {
    send_displs[static_cast<size_t>(r)] = static_cast<int>(flat.size());
    send_counts[static_cast<size_t>(r)] = static_cast<int>(to[static_cast<size_t>(r)].size());
    flat.insert(flat.end(), to[static_cast<size_t>(r)].begin(), to[static_cast<size_t>(r)].end());
  }
  const Datatype* ints = find_datatype(MPI_INT);
  std::vector<int> recv_counts(static_cast<size_t>(p)), recv_displs(static_cast<size_t>(p));
  if (Err e = coll::alltoall(send_counts.data(), 1, ints, recv_counts.data(), 1, ints, parent)) return e;
  int total = 0;
  for (int r = 0; r < p; ++r) {
    recv_displs[static_cast<size_t>(r)] = total;
    total += recv_counts[static_cast<size_t>(r)];
  }
  std::vector<int> got(static_cast<size_t>(total));
  if (Err e = coll::alltoallv(flat.data(), send_counts.data(), send_displs.data(), ints, got.data(),
                              recv_counts.data(), recv_displs.data(), ints, parent))
    return e;

  // In the order received: by the rank that named the edge, then as it
  // named them.
  Topology t;
  t.kind = MPI_DIST_GRAPH;
  t.weighted = weighted;
  for (size_t i = 0; i + 3 < got.size(); i += 4) {
    if (got[i + 3] == 0) {
      t.destinations.push_back(got[i + 1]);
      t.destination_weights.push_back(got[i + 2]);
    } else {
      t.sources.push_back(got[i]);
      t.source_weights.push_back(got[i + 2]);
    }
  }
  if (Err e = create(parent, parent->group, out)) return e;
  attach(*out, std::move(t));
  return {};
}

}  // namespace ferry::communicators
