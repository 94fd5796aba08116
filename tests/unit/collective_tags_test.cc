// The tags a communicator's collectives use (Communicator::next_collective_tag):
// a number from its sequence, or the fixed tag of a temporary communicator made
// for MPI_Comm_create_group (the program's tag) or for the fault-tolerance
// agreement and shrink (negative tags no program's tag can equal).
#include <gtest/gtest.h>

#include "base/communicator.h"

namespace ferry {
namespace {

TEST(CollectiveTags, OrdinaryCommunicatorNumbersItsCollectives) {
  Communicator c;
  EXPECT_FALSE(c.has_fixed_collective_tag());
  EXPECT_EQ(c.next_collective_tag(), 0);
  EXPECT_EQ(c.next_collective_tag(), 1);
  c.collective_sequence = 0x3fffffffu;
  EXPECT_EQ(c.next_collective_tag(), 0x3fffffff);
  EXPECT_EQ(c.next_collective_tag(), 0);  // 30 bits, never negative
}

TEST(CollectiveTags, ProgramTagIsKeptForEveryCollective) {
  Communicator parent;
  parent.collective_sequence = 7;
  Communicator via;
  communicators::shadow(parent, 42, -1, &via, nullptr);
  EXPECT_TRUE(via.has_fixed_collective_tag());
  EXPECT_EQ(via.next_collective_tag(), 42);
  EXPECT_EQ(via.next_collective_tag(), 42);
}

// ULFM's agreement (tag -1001) and shrink (-1002) run on the parent's
// group-collective context, where a program's MPI_Comm_create_group runs
// with tags >= 0: their tag must stay negative, not become a sequence
// number that a program's tag could equal.
TEST(CollectiveTags, NegativeTagIsKeptNotNumbered) {
  Communicator parent;
  parent.collective_sequence = 5;
  Communicator via;
  communicators::shadow(parent, -1001, -1, &via, nullptr);
  EXPECT_TRUE(via.has_fixed_collective_tag());
  EXPECT_EQ(via.next_collective_tag(), -1001);
  EXPECT_EQ(via.next_collective_tag(), -1001);
  EXPECT_EQ(parent.collective_sequence, 5u);
}

}  // namespace
}  // namespace ferry
