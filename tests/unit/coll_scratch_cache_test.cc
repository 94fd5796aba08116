// coll/scratch_cache.h: a large schedule scratch block comes back to the next
// schedule that fits in it, and what is kept stays within its bounds.
#include "coll/scratch_cache.h"

#include <gtest/gtest.h>

#include <vector>

namespace sc = ferry::coll::scratch_cache;

namespace {

// Empties the cache between cases: takes every kept block it can find.
void drain() {
  std::vector<sc::Block> held;
  for (size_t i = 0; i < 2 * sc::kKeptBlocks; ++i) held.push_back(sc::take(sc::kSmallest));
  for (sc::Block& b : held) delete[] b.memory;
}

}  // namespace

TEST(ScratchCache, ALargeBlockIsHandedToTheNextScheduleThatFits) {
  drain();
  sc::Block a = sc::take(2 * sc::kSmallest);
  ASSERT_NE(a.memory, nullptr);
  EXPECT_GE(a.bytes, 2 * sc::kSmallest);
  char* memory = a.memory;
  sc::give(a);
  sc::Block smaller = sc::take(sc::kSmallest + 1);
  EXPECT_EQ(smaller.memory, memory);  // the kept block, not new memory
  sc::give(smaller);
  sc::Block larger = sc::take(4 * sc::kSmallest);
  EXPECT_NE(larger.memory, memory);  // too small for it: new
  EXPECT_GE(larger.bytes, 4 * sc::kSmallest);
  sc::give(larger);
  drain();
}

TEST(ScratchCache, SmallBlocksAreNotKept) {
  drain();
  sc::Block a = sc::take(1024);
  sc::give(a);
  sc::Block b = sc::take(sc::kSmallest);
  EXPECT_GE(b.bytes, sc::kSmallest);
  sc::give(b);
  drain();
}

TEST(ScratchCache, KeptBlocksStayWithinTheirBounds) {
  drain();
  // Five blocks given back: at most kKeptBlocks stay, the largest ones.
  std::vector<sc::Block> blocks;
  for (size_t i = 1; i <= sc::kKeptBlocks + 1; ++i) blocks.push_back(sc::take(i * sc::kSmallest));
  for (sc::Block& b : blocks) sc::give(b);
  std::vector<sc::Block> back;
  for (size_t i = 0; i < sc::kKeptBlocks + 1; ++i) back.push_back(sc::take(sc::kSmallest));
  // The kept ones come smallest first: 2, 3, 4, 5 x kSmallest; the smallest
  // given (1 x) was dropped, so the fifth is new, of the size asked.
  for (size_t i = 0; i < sc::kKeptBlocks; ++i) EXPECT_EQ(back[i].bytes, (i + 2) * sc::kSmallest);
  EXPECT_EQ(back.back().bytes, sc::kSmallest);
  for (sc::Block& b : back) sc::give(b);
  drain();
  // A block larger than kKeptBytes is freed, not kept.
  sc::Block huge = sc::take(sc::kKeptBytes + sc::kSmallest);
  sc::give(huge);
  sc::Block next = sc::take(sc::kKeptBytes + sc::kSmallest);
  EXPECT_EQ(next.bytes, sc::kKeptBytes + sc::kSmallest);
  sc::give(next);
  drain();
}
