// The inline communicator lookup (base/comm_lookup.h), which every call on
// a communicator makes first, answers as communicators::find does for
// every handle: the predefined two while they are valid (between
// create_predefined and destroy_all) and nullptr otherwise, handles next
// to them, the null handle and others of no communicator.
#include "base/comm_lookup.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mpi.h"

namespace ferry {
namespace {

std::vector<MPI_Comm> handles_to_try() {
  std::vector<MPI_Comm> out = {MPI_COMM_WORLD, MPI_COMM_SELF, MPI_COMM_NULL, MPI_COMM_WORLD - 1, MPI_COMM_SELF + 1,
                               MPI_COMM_WORLD + 2, 0, -1, static_cast<MPI_Comm>(0x84000000),
                               static_cast<MPI_Comm>(0xc4000000), static_cast<MPI_Comm>(0xc4000001),
                               static_cast<MPI_Comm>(0x4c00040a) /* MPI_FLOAT: not a communicator */};
  // Every handle whose low bits would index the predefined pair under
  // another kind or object type.
  for (uint32_t high = 0; high < 64; ++high)
    for (uint32_t low = 0; low < 4; ++low) out.push_back(static_cast<MPI_Comm>((high << 26) | low));
  return out;
}

void expect_agreement(const char* when) {
  for (MPI_Comm h : handles_to_try())
    EXPECT_EQ(communicators::find_inline(h), communicators::find(h))
        << when << ": handle 0x" << std::hex << static_cast<uint32_t>(h);
}

TEST(CommLookup, AgreesWithFindBeforeDuringAndAfterThePredefinedCommunicators) {
  expect_agreement("before create_predefined");
  EXPECT_EQ(communicators::find_inline(MPI_COMM_WORLD), nullptr);

  communicators::create_predefined(0, 1);
  expect_agreement("after create_predefined");
  EXPECT_EQ(communicators::find_inline(MPI_COMM_WORLD), &communicators::world());
  EXPECT_EQ(communicators::find_inline(MPI_COMM_SELF), &communicators::self());

  communicators::destroy_all();
  expect_agreement("after destroy_all");
  EXPECT_EQ(communicators::find_inline(MPI_COMM_SELF), nullptr);
}

}  // namespace
}  // namespace ferry
