#include "base/topology.h"

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

}  // namespace ferry
