// The cells of shared-memory collective segments where the host's ranks
// outnumber its cores (coll/shm/segment.cc, cell_where_ranks_share_cores).
#include <gtest/gtest.h>

#include "coll/shm/segment.h"

namespace ferry::coll::shm {
namespace {

constexpr size_t KiB = 1024;

TEST(CellsWhereRanksShareCores, AsLargeAsTheBudgetAllowsForTheHostsRanks) {
  for (int n = 2; n <= 4; ++n) EXPECT_EQ(cell_where_ranks_share_cores(n), 256 * KiB) << n << " ranks";
  for (int n = 5; n <= 8; ++n) EXPECT_EQ(cell_where_ranks_share_cores(n), 128 * KiB) << n << " ranks";
  for (int n = 9; n <= 16; ++n) EXPECT_EQ(cell_where_ranks_share_cores(n), 64 * KiB) << n << " ranks";
}

TEST(CellsWhereRanksShareCores, ASegmentsCellsStayWithinFourMebibytes) {
  for (int n = 1; n <= 16; ++n) {
    const size_t cell = cell_where_ranks_share_cores(n);
    EXPECT_LE(cell * CommSegment::kCells * static_cast<size_t>(n), size_t{4} << 20) << n << " ranks";
    EXPECT_EQ(cell % 64, 0u) << "whole cache lines, " << n << " ranks";
  }
}

TEST(CellsWhereRanksShareCores, MoreThanSixteenRanksKeepTheConfiguredCell) {
  EXPECT_EQ(cell_where_ranks_share_cores(17), 0u);
  EXPECT_EQ(cell_where_ranks_share_cores(1024), 0u);
}

}  // namespace
}  // namespace ferry::coll::shm
