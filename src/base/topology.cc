#include "base/topology.h"

#include <algorithm>
#include <climits>

namespace ferry {

int Topology::cart_size() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::vector<int> Topology::coords_of(int rank) const {
  std::vector<int> coords(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    coords[i] = rank % dims[i];
    rank /= dims[i];
  }
  return coords;
}

Err Topology::rank_of(const int coords[], int* rank) const {
  int r = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int c = coords[i];
    if (periods[i]) {
      c %= dims[i];
      if (c < 0) c += dims[i];
    } else if (c < 0 || c >= dims[i]) {
      return fail(MPI_ERR_ARG, "coordinate %d of dimension %zu is outside 0..%d (the dimension is not periodic)",
                  coords[i], i, dims[i] - 1);
    }
    r = r * dims[i] + c;
  }
  *rank = r;
  return {};
}

void Topology::shift(int rank, int direction, int displacement, int* source, int* dest) const {
  std::vector<int> coords = coords_of(rank);
  auto moved = [&](int by) {
    std::vector<int> c = coords;
    c[static_cast<size_t>(direction)] += by;
    int r = MPI_PROC_NULL;
    if (!rank_of(c.data(), &r).ok()) return static_cast<int>(MPI_PROC_NULL);
    return r;
  };
  *source = moved(-displacement);
  *dest = moved(displacement);
}

std::vector<int> Topology::graph_neighbors(int rank) const {
  size_t begin = rank == 0 ? 0 : static_cast<size_t>(index[static_cast<size_t>(rank) - 1]);
  size_t end = static_cast<size_t>(index[static_cast<size_t>(rank)]);
  return std::vector<int>(edges.begin() + static_cast<ptrdiff_t>(begin), edges.begin() + static_cast<ptrdiff_t>(end));
}

std::vector<int> Topology::in_neighbors(int rank) const {
  switch (kind) {
    case MPI_CART: {
      std::vector<int> out;
      for (size_t d = 0; d < dims.size(); ++d) {
        int source = MPI_PROC_NULL, dest = MPI_PROC_NULL;
        shift(rank, static_cast<int>(d), 1, &source, &dest);
        out.push_back(source);
        out.push_back(dest);
      }
      return out;
    }
    case MPI_GRAPH: return graph_neighbors(rank);
    case MPI_DIST_GRAPH: return sources;
  }
  return {};
}

std::vector<int> Topology::out_neighbors(int rank) const {
  if (kind == MPI_DIST_GRAPH) return destinations;
  // Cartesian and graph topologies are symmetric: the same neighbours, in
  // the same order.
  return in_neighbors(rank);
}

namespace topology {
namespace {

// The most balanced non-increasing factorisation of `n` into `k` factors
// each at most `limit`: the one whose largest and smallest factors differ
// least. `chosen` holds the factors so far; `best` the best found.
void search(int n, int k, int limit, std::vector<int>& chosen, std::vector<int>& best, int& best_spread) {
  if (k == 0) {
    if (n != 1) return;
    int spread = chosen.front() - chosen.back();
    if (spread < best_spread) {
      best_spread = spread;
      best = chosen;
    }
    return;
  }
  // The largest remaining factor is at least the k-th root of n.
  for (int f = std::min(n, limit); f >= 1; --f) {
    if (n % f != 0) continue;
    long long reach = 1;
    for (int i = 0; i < k && reach < n; ++i) reach *= f;
    if (reach < n) break;  // f^k < n: f and every smaller f are too small
    if (!chosen.empty() && chosen.front() - f >= best_spread) break;
    chosen.push_back(f);
    search(n / f, k - 1, f, chosen, best, best_spread);
    chosen.pop_back();
  }
}

}  // namespace

Err dims_create(int nnodes, int ndims, int dims[]) {
  if (nnodes < 1) return fail(MPI_ERR_ARG, "invalid nnodes %d (must be >= 1)", nnodes);
  if (ndims < 0) return fail(MPI_ERR_DIMS, "invalid ndims %d (must be >= 0)", ndims);
  int fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return fail(MPI_ERR_DIMS, "dims[%d] is %d (must be >= 0)", i, dims[i]);
    if (dims[i] == 0) ++free_dims;
    else fixed *= dims[i];
  }
  if (nnodes % fixed != 0 || (free_dims == 0 && fixed != nnodes))
    return fail(MPI_ERR_DIMS, "the given dimensions (product %d) do not divide nnodes %d", fixed, nnodes);
  if (free_dims == 0) return {};
  std::vector<int> chosen, best;
  int best_spread = INT_MAX;
  search(nnodes / fixed, free_dims, nnodes / fixed, chosen, best, best_spread);
  for (int i = 0, next = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = best[static_cast<size_t>(next++)];
  return {};
}

}  // namespace topology
}  // namespace ferry
