// Groups (base/group.h): the set operations of MPI-3.1 §6.3.2 keep the order
// the standard gives them, reject bad ranks with MPI_ERR_RANK and bad
// arguments with MPI_ERR_ARG, and group objects are reference counted.
#include "base/group.h"

#include <gtest/gtest.h>

#include <vector>

#include "mpi.h"

namespace ferry {
namespace {

using groups::Members;

// World ranks of a group of 6: group rank i is world rank 10 + i, so a
// mistake between group and world ranks shows.
const Members kSix = {10, 11, 12, 13, 14, 15};

TEST(GroupIncl, KeepsTheOrderOfTheRanksGiven) {
  Members out;
  const int ranks[] = {4, 0, 2};
  ASSERT_TRUE(groups::incl(kSix, 3, ranks, &out).ok());
  EXPECT_EQ(out, (Members{14, 10, 12}));
}

TEST(GroupIncl, NoRanksGivesAnEmptyGroup) {
  Members out = {1};
  ASSERT_TRUE(groups::incl(kSix, 0, nullptr, &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(GroupIncl, RejectsOutOfRangeAndRepeatedRanks) {
  Members out;
  const int out_of_range[] = {0, 6};
  Err e = groups::incl(kSix, 2, out_of_range, &out);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_RANK);
  EXPECT_NE(e.message().find("ranks[1]"), std::string::npos) << e.message();
  const int negative[] = {-1};
  EXPECT_EQ(groups::incl(kSix, 1, negative, &out).mpi_class(), MPI_ERR_RANK);
  const int repeated[] = {3, 1, 3};
  EXPECT_EQ(groups::incl(kSix, 3, repeated, &out).mpi_class(), MPI_ERR_RANK);
  const int seven[] = {0, 1, 2, 3, 4, 5, 0};
  EXPECT_EQ(groups::incl(kSix, 7, seven, &out).mpi_class(), MPI_ERR_RANK);
  EXPECT_EQ(groups::incl(kSix, -1, repeated, &out).mpi_class(), MPI_ERR_ARG);
}

TEST(GroupExcl, KeepsTheGroupsOrderOfTheRest) {
  Members out;
  const int ranks[] = {5, 1};
  ASSERT_TRUE(groups::excl(kSix, 2, ranks, &out).ok());
  EXPECT_EQ(out, (Members{10, 12, 13, 14}));
  const int repeated[] = {2, 2};
  EXPECT_EQ(groups::excl(kSix, 2, repeated, &out).mpi_class(), MPI_ERR_RANK);
}

TEST(GroupRanges, ExpandStridesBothWays) {
  Members out;
  const int ranges[][3] = {{0, 4, 2}, {5, 1, -4}};  // 0 2 4, then 5 1
  ASSERT_TRUE(groups::range_incl(kSix, 2, ranges, &out).ok());
  EXPECT_EQ(out, (Members{10, 12, 14, 15, 11}));
  ASSERT_TRUE(groups::range_excl(kSix, 2, ranges, &out).ok());
  EXPECT_EQ(out, (Members{13}));
}

TEST(GroupRanges, LastNeedNotBeReached) {
  Members out;
  const int ranges[][3] = {{1, 5, 3}};  // 1 4
  ASSERT_TRUE(groups::range_incl(kSix, 1, ranges, &out).ok());
  EXPECT_EQ(out, (Members{11, 14}));
  const int single[][3] = {{3, 3, -7}};
  ASSERT_TRUE(groups::range_incl(kSix, 1, single, &out).ok());
  EXPECT_EQ(out, (Members{13}));
}

TEST(GroupRanges, RejectZeroStrideBadEndsAndOverlaps) {
  Members out;
  const int zero[][3] = {{0, 3, 0}};
  EXPECT_EQ(groups::range_incl(kSix, 1, zero, &out).mpi_class(), MPI_ERR_ARG);
  const int past_end[][3] = {{0, 6, 1}};
  EXPECT_EQ(groups::range_incl(kSix, 1, past_end, &out).mpi_class(), MPI_ERR_RANK);
  const int overlap[][3] = {{0, 3, 1}, {3, 5, 1}};
  Err e = groups::range_excl(kSix, 2, overlap, &out);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_RANK);
  EXPECT_NE(e.message().find("ranges[1]"), std::string::npos) << e.message();
}

TEST(GroupSetOperations, FollowTheStandardsOrder) {
  const Members a = {5, 1, 3, 7};
  const Members b = {2, 3, 9, 5};
  EXPECT_EQ(groups::set_union(a, b), (Members{5, 1, 3, 7, 2, 9}));
  EXPECT_EQ(groups::intersection(a, b), (Members{5, 3}));
  EXPECT_EQ(groups::difference(a, b), (Members{1, 7}));
  EXPECT_EQ(groups::difference(b, a), (Members{2, 9}));
  EXPECT_TRUE(groups::intersection(a, {}).empty());
  EXPECT_EQ(groups::set_union({}, b), b);
}

TEST(GroupTranslate, MapsThroughWorldRanks) {
  const Members g2 = {15, 3, 12, 10};
  const int ranks1[] = {0, 1, 2, 5, MPI_PROC_NULL};
  int ranks2[5] = {};
  ASSERT_TRUE(groups::translate(kSix, 5, ranks1, g2, ranks2).ok());
  EXPECT_EQ(ranks2[0], 3);
  EXPECT_EQ(ranks2[1], MPI_UNDEFINED);
  EXPECT_EQ(ranks2[2], 2);
  EXPECT_EQ(ranks2[3], 0);
  EXPECT_EQ(ranks2[4], MPI_PROC_NULL);
  const int bad[] = {6};
  EXPECT_EQ(groups::translate(kSix, 1, bad, g2, ranks2).mpi_class(), MPI_ERR_RANK);
}

TEST(GroupCompare, IdentSimilarUnequal) {
  EXPECT_EQ(groups::compare(kSix, kSix), MPI_IDENT);
  EXPECT_EQ(groups::compare(kSix, {15, 14, 13, 12, 11, 10}), MPI_SIMILAR);
  EXPECT_EQ(groups::compare(kSix, {10, 11, 12}), MPI_UNEQUAL);
  EXPECT_EQ(groups::compare(kSix, {10, 11, 12, 13, 14, 16}), MPI_UNEQUAL);
  EXPECT_EQ(groups::compare({}, {}), MPI_IDENT);
}

TEST(GroupObjects, AreReferenceCountedAndFreeTheirHandles) {
  size_t before = groups::live();
  Group* g = groups::make({4, 2, 7}, 7);
  EXPECT_EQ(g->rank, 2);
  EXPECT_EQ(groups::find(g->handle), g);
  EXPECT_EQ(groups::live(), before + 1);
  MPI_Group h = g->handle;
  groups::retain(g);
  groups::release(g);
  EXPECT_EQ(groups::find(h), g);  // one reference left
  groups::release(g);
  EXPECT_EQ(groups::find(h), nullptr);
  EXPECT_EQ(groups::live(), before);
}

TEST(GroupObjects, NonMembersHaveRankUndefined) {
  Group* g = groups::make({4, 2}, 9);
  EXPECT_EQ(g->rank, MPI_UNDEFINED);
  groups::release(g);
}

TEST(GroupObjects, EmptyIsThePredefinedGroupAndSurvivesReleases) {
  Group* g = groups::make({}, 0);
  EXPECT_EQ(g->handle, MPI_GROUP_EMPTY);
  EXPECT_EQ(groups::find(MPI_GROUP_EMPTY), g);
  groups::release(g);
  groups::release(g);
  EXPECT_EQ(groups::find(MPI_GROUP_EMPTY), g);
  EXPECT_EQ(g->size(), 0);
  EXPECT_EQ(groups::find(MPI_GROUP_NULL), nullptr);
}

}  // namespace
}  // namespace ferry
