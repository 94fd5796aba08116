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

// MPICH 4.0.2's choices (its test topo/dims5 holds some 75,000; this is a
// sample from 2 to 17 dimensions), ties included: 15984 = 2^4 3^3 37 in 4
// dimensions has 37x9x8x6 and 37x12x6x6 with the same spread, and MPICH
// takes the one whose smaller dimensions are larger.
TEST(TopologyTest, DimsCreateMakesMpichsChoice) {
  struct Case {
    int nnodes;
    std::vector<int> want;
  };
  const Case cases[] = {
      {15984, {37, 9, 8, 6}},
      {435183, {901, 483}},
      {964476, {1101, 876}},
      {821975, {175, 77, 61}},
      {656460, {521, 36, 35}},
      {849464, {197, 77, 56}},
      {792720, {367, 48, 45}},
      {153720, {61, 15, 14, 12}},
      {41400, {23, 15, 12, 10}},
      {821583, {49, 27, 27, 23}},
      {494160, {71, 29, 16, 15}},
      {863460, {41, 15, 13, 12, 9}},
      {437472, {31, 14, 14, 9, 8}},
      {374616, {43, 11, 11, 9, 8}},
      {757512, {167, 9, 9, 8, 7}},
      {933120, {12, 12, 10, 9, 9, 8}},
      {798336, {12, 12, 11, 9, 8, 7}},
      {30000, {5, 5, 5, 5, 4, 4, 3}},
      {84375, {9, 5, 5, 5, 5, 5, 3}},
      {529200, {7, 7, 6, 6, 5, 5, 4, 3}},
      {40500, {5, 5, 5, 4, 3, 3, 3, 3}},
      {408240, {7, 6, 6, 5, 4, 3, 3, 3, 3}},
      {15552, {4, 3, 3, 3, 3, 3, 2, 2, 2, 2}},
      {777600, {5, 5, 4, 4, 4, 3, 3, 3, 3, 3, 2}},
      {279936, {4, 4, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2}},
      {518400, {5, 5, 4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2}},
      {884736, {4, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
  };
  for (const Case& c : cases)
    EXPECT_EQ(dims(c.nnodes, std::vector<int>(c.want.size(), 0)), c.want) << c.nnodes << " in " << c.want.size();
}

// Large counts with many divisors stay fast (the old exhaustive search took
// a minute for MPICH's 75,000 cases); the test's timeout catches a slow one.
TEST(TopologyTest, DimsCreateHandlesLargeComposites) {
  for (int d = 2; d <= 12; ++d) {
    std::vector<int> got = dims(735134400, std::vector<int>(static_cast<size_t>(d), 0));
    long long product = 1;
    for (size_t i = 0; i < got.size(); ++i) {
      product *= got[i];
      if (i > 0) {
        EXPECT_GE(got[i - 1], got[i]) << d << " dimensions";
      }
    }
    EXPECT_EQ(product, 735134400) << d << " dimensions";
  }
  EXPECT_EQ(dims(735134400, {0, 0, 0, 0}), (std::vector<int>{170, 168, 165, 156}));
  EXPECT_EQ(dims(2147483647, {0, 0, 0}), (std::vector<int>{2147483647, 1, 1}));
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
