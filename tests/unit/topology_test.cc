// Process-topology arithmetic (base/topology.h): MPI_Dims_create's balanced
// factorisations, Cartesian coordinates and shifts, and the neighbour lists
// that the neighbourhood collectives use.
#include "base/topology.h"

#include <gtest/gtest.h>

#include <vector>

namespace ferry {
namespace {

std::vector<int> dims(int nnodes, std::vector<int> given) {
  Err e = topology::dims_create(nnodes, static_cast<int>(given.size()), given.data());
  EXPECT_TRUE(e.ok()) << e.message();
  return given;
}

TEST(TopologyTest, DimsCreateIsBalancedAndNonIncreasing) {
  EXPECT_EQ(dims(6, {0, 0}), (std::vector<int>{3, 2}));
  EXPECT_EQ(dims(64, {0, 0, 0}), (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(dims(72, {0, 0, 0}), (std::vector<int>{6, 4, 3}));
  EXPECT_EQ(dims(1 << 20, {0, 0, 0}), (std::vector<int>{128, 128, 64}));
  EXPECT_EQ(dims(97 * 89, {0, 0}), (std::vector<int>{97, 89}));
  EXPECT_EQ(dims(13, {0, 0, 0}), (std::vector<int>{13, 1, 1}));
  EXPECT_EQ(dims(60, {0, 5, 0}), (std::vector<int>{4, 5, 3}));
  EXPECT_EQ(dims(8, {2, 4}), (std::vector<int>{2, 4}));
  EXPECT_EQ(dims(1, {}), (std::vector<int>{}));
}

TEST(TopologyTest, DimsCreateRejectsWhatCannotBeMet) {
  std::vector<int> d = {5, 0};
  EXPECT_EQ(topology::dims_create(12, 2, d.data()).mpi_class(), MPI_ERR_DIMS);
  d = {3, 3};
  EXPECT_EQ(topology::dims_create(12, 2, d.data()).mpi_class(), MPI_ERR_DIMS);
  d = {-1, 0};
  EXPECT_EQ(topology::dims_create(12, 2, d.data()).mpi_class(), MPI_ERR_DIMS);
  EXPECT_EQ(topology::dims_create(0, 2, d.data()).mpi_class(), MPI_ERR_ARG);
}

Topology grid(std::vector<int> d, std::vector<bool> periods) {
  Topology t;
  t.kind = MPI_CART;
  t.dims = std::move(d);
  t.periods = std::move(periods);
  return t;
}

TEST(TopologyTest, CoordinatesAreRowMajorAndRoundTrip) {
  Topology t = grid({3, 4, 2}, {false, true, false});
  EXPECT_EQ(t.cart_size(), 24);
  EXPECT_EQ(t.coords_of(0), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(t.coords_of(1), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(t.coords_of(2), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(t.coords_of(23), (std::vector<int>{2, 3, 1}));
  for (int r = 0; r < 24; ++r) {
    int back = -1;
    ASSERT_TRUE(t.rank_of(t.coords_of(r).data(), &back).ok());
    EXPECT_EQ(back, r);
  }
  int wrapped[3] = {1, -1, 0}, r = -1;
  ASSERT_TRUE(t.rank_of(wrapped, &r).ok());
  EXPECT_EQ(r, 8 + 3 * 2) << "the periodic middle dimension wraps -1 to 3";
  int outside[3] = {3, 0, 0};
  EXPECT_EQ(t.rank_of(outside, &r).mpi_class(), MPI_ERR_ARG);
}

TEST(TopologyTest, ShiftsStopAtNonPeriodicEdgesAndWrapAtPeriodicOnes) {
  Topology t = grid({2, 3}, {false, true});
  int source = 0, dest = 0;
  t.shift(0, 0, 1, &source, &dest);
  EXPECT_EQ(source, MPI_PROC_NULL);
  EXPECT_EQ(dest, 3);
  t.shift(0, 1, 1, &source, &dest);
  EXPECT_EQ(source, 2);
  EXPECT_EQ(dest, 1);
  t.shift(4, 1, -2, &source, &dest);
  EXPECT_EQ(source, 3) << "(1,1) + 2 wraps to (1,0)";
  EXPECT_EQ(dest, 5);
}

TEST(TopologyTest, NeighbourListsFollowTheStandardsOrder) {
  Topology ring = grid({2}, {true});
  EXPECT_EQ(ring.in_neighbors(0), (std::vector<int>{1, 1})) << "both neighbours of a 2-ring are the other rank";
  Topology line = grid({3}, {false});
  EXPECT_EQ(line.in_neighbors(0), (std::vector<int>{MPI_PROC_NULL, 1}));
  EXPECT_EQ(line.out_neighbors(2), (std::vector<int>{1, MPI_PROC_NULL}));

  Topology g;
  g.kind = MPI_GRAPH;
  g.index = {2, 3, 4};
  g.edges = {1, 2, 0, 0};
  EXPECT_EQ(g.graph_neighbors(0), (std::vector<int>{1, 2}));
  EXPECT_EQ(g.in_neighbors(2), (std::vector<int>{0}));

  Topology d;
  d.kind = MPI_DIST_GRAPH;
  d.sources = {3, 1};
  d.destinations = {2};
  EXPECT_EQ(d.in_neighbors(0), (std::vector<int>{3, 1}));
  EXPECT_EQ(d.out_neighbors(0), (std::vector<int>{2}));
}

}  // namespace
}  // namespace ferry
