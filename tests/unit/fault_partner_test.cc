// Partner choice (SCR's PARTNER scheme): every rank's copy is on the next
// host, at the same local rank where that host has one, and never on its
// own host; the node-local directory is named per host.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fault/partner.h"

using ferry::fault::choose_partners;
using ferry::fault::expand_host;

namespace {

using Hosts = std::vector<std::string>;

TEST(FaultPartner, SameLocalRankOnTheNextHost) {
  // Two ranks on each of three hosts, placed by slot: h1 {0,1}, h2 {2,3}, h3 {4,5}.
  EXPECT_EQ(choose_partners(Hosts{"h1", "h1", "h2", "h2", "h3", "h3"}), (std::vector<int>{2, 3, 4, 5, 0, 1}));
  // Placed round robin (--map-by node): h1 {0,3}, h2 {1,4}, h3 {2,5}.
  EXPECT_EQ(choose_partners(Hosts{"h1", "h2", "h3", "h1", "h2", "h3"}), (std::vector<int>{1, 2, 0, 4, 5, 3}));
}

TEST(FaultPartner, TwoHostsPartnerEachOther) {
  EXPECT_EQ(choose_partners(Hosts{"a", "b"}), (std::vector<int>{1, 0}));
  EXPECT_EQ(choose_partners(Hosts{"a", "a", "b", "b"}), (std::vector<int>{2, 3, 0, 1}));
}

TEST(FaultPartner, UnevenHostsWrapAroundTheSmallerOne) {
  // h1 has three ranks, h2 one: h1's ranks all copy to rank 3, which copies to rank 0.
  EXPECT_EQ(choose_partners(Hosts{"h1", "h1", "h1", "h2"}), (std::vector<int>{3, 3, 3, 0}));
  // h1 {0}, h2 {1,2}: rank 0 copies to 1; both of h2's copy to h1's only rank.
  EXPECT_EQ(choose_partners(Hosts{"h1", "h2", "h2"}), (std::vector<int>{1, 0, 0}));
}

TEST(FaultPartner, NeverOnTheSameHost) {
  Hosts hosts{"x", "y", "x", "z", "y", "x", "z", "z"};
  std::vector<int> partner = choose_partners(hosts);
  ASSERT_EQ(partner.size(), hosts.size());
  for (size_t r = 0; r < hosts.size(); ++r) EXPECT_NE(hosts[r], hosts[partner[r]]) << "rank " << r;
}

TEST(FaultPartner, OneHostHasNoPartners) {
  EXPECT_TRUE(choose_partners(Hosts{"h1", "h1", "h1"}).empty());
  EXPECT_TRUE(choose_partners(Hosts{"h1"}).empty());
  EXPECT_TRUE(choose_partners(Hosts{}).empty());
}

TEST(FaultPartner, LocalDirectoryNamesItsHost) {
  EXPECT_EQ(expand_host("/scratch/ckpt-%h", "node7"), "/scratch/ckpt-node7");
  EXPECT_EQ(expand_host("/tmp/%h/%h", "a"), "/tmp/a/a");
  EXPECT_EQ(expand_host("/local/ckpt", "a"), "/local/ckpt");
  EXPECT_EQ(expand_host("/x/100%", "a"), "/x/100%");
}

}  // namespace
