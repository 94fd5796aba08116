// The collective selection table (src/coll/select.cc): what "auto" picks,
// that reordering algorithms never get non-commutative operations, and how
// FERRY_<OPERATION>_ALGORITHM overrides behave.
//
// Overrides are read once per process, so each override case runs in a
// fresh process of its own (EXPECT_EXIT with the "threadsafe" death-test
// style, which re-executes the test binary for just that case).
#include "coll/select.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "mpi.h"

namespace ferry::coll {
namespace {

class CollSelectOverride : public testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

Algorithm pick(Operation op, size_t bytes, int ranks, bool commutative) {
  Algorithm a{};
  Err e = select(op, Query{bytes, ranks, commutative}, &a);
  EXPECT_TRUE(e.ok()) << e.message();
  return a;
}

TEST(CollSelect, SmallAllreduceUsesRecursiveDoubling) {
  EXPECT_EQ(pick(Operation::kAllreduce, 8, 2, true), Algorithm::kRecursiveDoubling);
  EXPECT_EQ(pick(Operation::kAllreduce, 8, 64, true), Algorithm::kRecursiveDoubling);
  EXPECT_EQ(pick(Operation::kAllreduce, 4096, 7, false), Algorithm::kRecursiveDoubling);
}

TEST(CollSelect, LargeAllreduceUsesABandwidthAlgorithm) {
  Algorithm a = pick(Operation::kAllreduce, size_t{64} << 20, 16, true);
  EXPECT_TRUE(a == Algorithm::kRing || a == Algorithm::kRabenseifner || a == Algorithm::kTree) << name(a);
}

TEST(CollSelect, ReorderingAlgorithmsNeverGetNonCommutativeOps) {
  for (size_t bytes = 1; bytes <= (size_t{256} << 20); bytes *= 2) {
    for (int ranks = 2; ranks <= 70; ++ranks) {
      EXPECT_NE(pick(Operation::kAllreduce, bytes, ranks, false), Algorithm::kRing) << bytes << " B, " << ranks;
      EXPECT_NE(pick(Operation::kReduceScatter, bytes, ranks, false), Algorithm::kPairwise) << bytes << " B";
      EXPECT_NE(pick(Operation::kReduceScatterBlock, bytes, ranks, false), Algorithm::kPairwise) << bytes << " B";
      EXPECT_NE(pick(Operation::kReduce, bytes, ranks, false), Algorithm::kHalves) << bytes << " B, " << ranks;
    }
  }
}

// reduce/halves.cc is written for exactly two ranks, and since the binomial
// root combines in recvbuf without a copy it lost there too: override only.
TEST(CollSelect, ReduceOnTwoRanksIsBinomialAtEverySizeAndHalvesNeverDefault) {
  for (size_t bytes = 32 * 1024; bytes <= (size_t{64} << 20); bytes *= 2)
    EXPECT_EQ(pick(Operation::kReduce, bytes, 2, true), Algorithm::kBinomial) << bytes;
  for (int ranks = 2; ranks <= 70; ++ranks)
    EXPECT_NE(pick(Operation::kReduce, size_t{4} << 20, ranks, true), Algorithm::kHalves) << ranks;
}

// Scans take the pipelined chain for long vectors on few ranks (above
// 64 KiB on 3-4, above 1 MiB on 5-8: at least 4 segments), commutative or
// not, and recursive doubling elsewhere.
TEST(CollSelect, LongScansOnFewRanksTakeThePipelinedChain) {
  for (Operation o : {Operation::kScan, Operation::kExscan})
    for (bool commutative : {true, false}) {
      EXPECT_EQ(pick(o, 64 * 1024, 4, commutative), Algorithm::kRecursiveDoubling);
      EXPECT_EQ(pick(o, 128 * 1024, 4, commutative), Algorithm::kPipelinedChain);
      EXPECT_EQ(pick(o, 256 * 1024, 2, commutative), Algorithm::kRecursiveDoubling);
      EXPECT_EQ(pick(o, 256 * 1024, 3, commutative), Algorithm::kPipelinedChain);
      EXPECT_EQ(pick(o, 256 * 1024, 4, commutative), Algorithm::kPipelinedChain);
      EXPECT_EQ(pick(o, 256 * 1024, 5, commutative), Algorithm::kRecursiveDoubling);
      EXPECT_EQ(pick(o, size_t{2} << 20, 8, commutative), Algorithm::kPipelinedChain);
      EXPECT_EQ(pick(o, size_t{2} << 20, 9, commutative), Algorithm::kRecursiveDoubling);
    }
}

// Across hosts, scans take the chain at every size on 3-8 ranks where it
// goes from host to host at most ceil(lg p) times (recursive doubling's
// rounds); more crossings, more ranks, or no hierarchy keep the rows above.
TEST(CollSelect, ScansAcrossFewHostBoundariesTakeTheChainOnUpToEightRanks) {
  auto chosen = [](Operation o, size_t bytes, int ranks, int crossings) {
    Query q{bytes, ranks, true};
    q.hierarchical = crossings >= 0;
    q.chain_crossings = crossings;
    Algorithm a{};
    EXPECT_TRUE(select(o, q, &a).ok());
    return a;
  };
  for (Operation o : {Operation::kScan, Operation::kExscan})
    for (size_t bytes : {size_t{8}, size_t{64} * 1024, size_t{4} << 20}) {
      EXPECT_EQ(chosen(o, bytes, 6, 2), Algorithm::kPipelinedChain) << bytes;  // 3 hosts of 2, in runs
      EXPECT_EQ(chosen(o, bytes, 6, 3), Algorithm::kPipelinedChain) << bytes;  // ceil(lg 6) = 3
      EXPECT_EQ(chosen(o, bytes, 8, 3), Algorithm::kPipelinedChain) << bytes;  // 4 hosts of 2
      EXPECT_EQ(chosen(o, bytes, 3, 1), Algorithm::kPipelinedChain) << bytes;
      EXPECT_EQ(chosen(o, bytes, 6, 4), pick(o, bytes, 6, true)) << bytes;   // hosts {0,1} {2} {3} {4} {5}
      EXPECT_EQ(chosen(o, bytes, 8, 6), pick(o, bytes, 8, true)) << bytes;   // hosts {0,1} {2} ... {7}
      EXPECT_EQ(chosen(o, bytes, 6, 5), pick(o, bytes, 6, true)) << bytes;   // dealt in turn
      EXPECT_EQ(chosen(o, bytes, 9, 2), pick(o, bytes, 9, true)) << bytes;
      EXPECT_EQ(chosen(o, bytes, 6, -1), pick(o, bytes, 6, true)) << bytes;  // one host, or no hierarchy
    }
  EXPECT_EQ(pick(Operation::kScan, 8, 6, true), Algorithm::kRecursiveDoubling);
}

TEST(CollSelect, EveryReductionHasItsOwnAlgorithms) {
  EXPECT_EQ(pick(Operation::kScan, 100, 5, false), Algorithm::kRecursiveDoubling);
  EXPECT_EQ(pick(Operation::kExscan, 100, 5, true), Algorithm::kRecursiveDoubling);
  Algorithm r = pick(Operation::kReduce, size_t{8} << 20, 9, false);
  EXPECT_TRUE(r == Algorithm::kBinomial || r == Algorithm::kReduceScatterGather) << name(r);
  EXPECT_STREQ(name(Operation::kAllreduce), "allreduce");
  EXPECT_STREQ(name(Algorithm::kRabenseifner), "rabenseifner");
}

Algorithm pick_hier(Operation op, size_t bytes, int ranks, bool commutative, bool forced = false) {
  Algorithm a{};
  Query q{bytes, ranks, commutative};
  q.hierarchical = true;
  q.hierarchical_forced = forced;
  Err e = select(op, q, &a);
  EXPECT_TRUE(e.ok()) << e.message();
  return a;
}

TEST(CollSelect, HierarchicalOnlyWhereTheQuerySaysItCanRun) {
  for (Operation op : {Operation::kAllreduce, Operation::kReduce, Operation::kBcast, Operation::kBarrier,
                       Operation::kAllgather}) {
    // FERRY_COLL_HIER=on: wherever it can run.
    EXPECT_EQ(pick_hier(op, 8, 6, true, true), Algorithm::kHierarchical) << name(op);
    EXPECT_EQ(pick_hier(op, 64 << 10, 6, true, true), Algorithm::kHierarchical) << name(op);
    EXPECT_NE(pick(op, 8, 6, true), Algorithm::kHierarchical) << name(op);
  }
  // auto: the table's rows (measured on the three-host bed).
  for (Operation op : {Operation::kAllreduce, Operation::kBcast, Operation::kBarrier, Operation::kAllgather})
    EXPECT_EQ(pick_hier(op, 8, 6, true), Algorithm::kHierarchical) << name(op);
  EXPECT_NE(pick_hier(Operation::kBcast, 64 << 10, 6, true), Algorithm::kHierarchical);
  EXPECT_NE(pick_hier(Operation::kReduce, 8, 6, true), Algorithm::kHierarchical);
  // Operations without a hierarchical form never get it.
  EXPECT_NE(pick_hier(Operation::kGather, 8, 6, true, true), Algorithm::kHierarchical);
  EXPECT_NE(pick_hier(Operation::kScan, 8, 6, true, true), Algorithm::kHierarchical);
}

TEST(CollSelect, HierarchicalReductionsNeedACommutativeOp) {
  // MPI-3.1 §5.9.1: the hosts' ranks are combined first, out of rank order.
  for (bool forced : {false, true}) {
    EXPECT_NE(pick_hier(Operation::kAllreduce, 8, 6, false, forced), Algorithm::kHierarchical);
    EXPECT_NE(pick_hier(Operation::kReduce, 8, 6, false, forced), Algorithm::kHierarchical);
  }
  EXPECT_EQ(pick_hier(Operation::kBcast, 8, 6, false, true), Algorithm::kHierarchical);
}

TEST_F(CollSelectOverride, OverrideForcesTheAlgorithm) {
  EXPECT_EXIT(
      {
        setenv("FERRY_ALLREDUCE_ALGORITHM", "tree", 1);
        bool ok = pick(Operation::kAllreduce, 8, 4, true) == Algorithm::kTree &&
                  pick(Operation::kAllreduce, size_t{1} << 30, 4, false) == Algorithm::kTree &&
                  pick(Operation::kReduce, 8, 4, true) == Algorithm::kBinomial && !validate_settings();
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST_F(CollSelectOverride, OverrideThatWouldReorderANonCommutativeOpIsIgnored) {
  EXPECT_EXIT(
      {
        setenv("FERRY_ALLREDUCE_ALGORITHM", "ring", 1);
        setenv("FERRY_REDUCE_SCATTER_ALGORITHM", "pairwise", 1);
        bool ok = pick(Operation::kAllreduce, 8, 4, true) == Algorithm::kRing &&
                  pick(Operation::kAllreduce, 8, 4, false) != Algorithm::kRing &&
                  pick(Operation::kReduceScatter, 8, 4, false) == Algorithm::kRecursiveHalving;
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST_F(CollSelectOverride, TwoRankReduceOverrideIsIgnoredOnOtherSizes) {
  EXPECT_EXIT(
      {
        setenv("FERRY_REDUCE_ALGORITHM", "halves", 1);
        bool ok = pick(Operation::kReduce, 8, 2, true) == Algorithm::kHalves &&
                  pick(Operation::kReduce, 8, 2, false) == Algorithm::kBinomial &&
                  pick(Operation::kReduce, size_t{4} << 20, 3, true) == Algorithm::kBinomial &&
                  pick(Operation::kReduce, size_t{4} << 20, 4, true) == Algorithm::kReduceScatterGather;
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST_F(CollSelectOverride, UnknownOverrideNamesTheVariableAndTheChoices) {
  EXPECT_EXIT(
      {
        setenv("FERRY_REDUCE_ALGORITHM", "fastest", 1);
        auto problem = validate_settings();
        Algorithm a{};
        Err e = select(Operation::kReduce, Query{8, 4, true}, &a);
        bool ok = problem && problem->find("FERRY_REDUCE_ALGORITHM=fastest") != std::string::npos &&
                  problem->find("binomial, reduce_scatter_gather, halves, shared_memory, hierarchical, auto") != std::string::npos &&
                  e.mpi_class() == MPI_ERR_ARG && e.message() == *problem &&
                  select(Operation::kAllreduce, Query{8, 4, true}, &a).ok();
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST_F(CollSelectOverride, SegmentSizeComesFromTheSetting) {
  EXPECT_EXIT(
      {
        setenv("FERRY_COLL_SEGMENT_SIZE", "1m", 1);
        std::exit(pipeline_segment_bytes() == (size_t{1} << 20) ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

// --- Data movement and barrier --------------------------------------------------

TEST(CollSelect, BcastPicksByMessageAndCommunicatorSize) {
  EXPECT_EQ(pick(Operation::kBcast, 100, 64, true), Algorithm::kBinomial);
  EXPECT_EQ(pick(Operation::kBcast, size_t{256} << 10, 4, true), Algorithm::kBinomial);
  EXPECT_EQ(pick(Operation::kBcast, size_t{256} << 10, 16, true), Algorithm::kScatterRingAllgather);
  EXPECT_EQ(pick(Operation::kBcast, size_t{8} << 20, 16, true), Algorithm::kPipelinedChain);
  // Two ranks: every algorithm is one message; the tree has no overhead.
  EXPECT_EQ(pick(Operation::kBcast, size_t{8} << 20, 2, true), Algorithm::kBinomial);
}

TEST(CollSelect, AllgatherUsesRecursiveDoublingOnlyOnPowersOfTwo) {
  EXPECT_EQ(pick(Operation::kAllgather, 1024, 8, true), Algorithm::kRecursiveDoubling);
  EXPECT_EQ(pick(Operation::kAllgather, 1024, 6, true), Algorithm::kBruck);
  EXPECT_EQ(pick(Operation::kAllgather, size_t{1} << 20, 8, true), Algorithm::kRing);
  EXPECT_EQ(pick(Operation::kAllgather, size_t{1} << 20, 7, true), Algorithm::kRing);
}

TEST(CollSelect, AlltoallUsesBruckForSmallBlocksOnly) {
  EXPECT_EQ(pick(Operation::kAlltoall, 64, 16, true), Algorithm::kBruck);
  EXPECT_EQ(pick(Operation::kAlltoall, 64, 2, true), Algorithm::kPairwise);
  EXPECT_EQ(pick(Operation::kAlltoall, size_t{64} << 10, 16, true), Algorithm::kPairwise);
}

TEST(CollSelect, EveryDataMovementCallGetsOneOfItsAlgorithms) {
  for (size_t bytes = 0; bytes <= (size_t{256} << 20); bytes = bytes == 0 ? 1 : bytes * 4) {
    for (int ranks = 1; ranks <= 70; ++ranks) {
      EXPECT_EQ(pick(Operation::kBarrier, bytes, ranks, true), Algorithm::kDissemination);
      // The tree for short blocks, linear for long ones.
      const Algorithm rooted = bytes <= (size_t{16} << 10) ? Algorithm::kBinomial : Algorithm::kLinear;
      EXPECT_EQ(pick(Operation::kGather, bytes, ranks, true), rooted);
      EXPECT_EQ(pick(Operation::kScatter, bytes, ranks, true), rooted);
      Algorithm b = pick(Operation::kBcast, bytes, ranks, true);
      EXPECT_TRUE(b == Algorithm::kBinomial || b == Algorithm::kScatterRingAllgather ||
                  b == Algorithm::kPipelinedChain)
          << name(b);
      Algorithm a = pick(Operation::kAlltoall, bytes, ranks, true);
      EXPECT_TRUE(a == Algorithm::kPairwise || a == Algorithm::kBruck) << name(a);
    }
  }
}

TEST_F(CollSelectOverride, DataMovementOverridesForceTheAlgorithm) {
  EXPECT_EXIT(
      {
        setenv("FERRY_BCAST_ALGORITHM", "pipelined_chain", 1);
        setenv("FERRY_ALLGATHER_ALGORITHM", "recursive_doubling", 1);
        setenv("FERRY_ALLTOALL_ALGORITHM", "bruck", 1);
        bool ok = pick(Operation::kBcast, 8, 5, true) == Algorithm::kPipelinedChain &&
                  pick(Operation::kAllgather, size_t{1} << 20, 7, true) == Algorithm::kRecursiveDoubling &&
                  pick(Operation::kAlltoall, size_t{1} << 20, 3, true) == Algorithm::kBruck &&
                  pick(Operation::kGather, 8, 5, true) == Algorithm::kBinomial && !validate_settings();
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST_F(CollSelectOverride, UnknownBcastOverrideListsTheBcastAlgorithms) {
  EXPECT_EXIT(
      {
        setenv("FERRY_BCAST_ALGORITHM", "ring", 1);
        auto problem = validate_settings();
        bool ok = problem && problem->find("FERRY_BCAST_ALGORITHM=ring") != std::string::npos &&
                  problem->find("binomial, scatter_ring_allgather, pipelined_chain, shared_memory, hierarchical, auto") != std::string::npos;
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ferry::coll
