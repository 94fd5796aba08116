// Placement of ranks on hosts: slot, node and per-node mapping, the rank
// count from the slots, oversubscription and max_slots, and the local flag.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "launcher/hosts/placement.h"

namespace ferry::launcher {
namespace {

using Ranks = std::vector<int>;

bool local_is_a(const std::string& name) { return name == "a"; }

hosts::HostEntry host(const std::string& name, int slots, int max_slots = 0) {
  hosts::HostEntry h;
  h.name = name;
  h.slots = slots;
  h.max_slots = max_slots;
  h.slots_given = true;
  h.origin = "hosts:" + std::to_string(name[0] - 'a' + 1);
  return h;
}

PlacementRequest request(std::vector<hosts::HostEntry> list, int n) {
  PlacementRequest r;
  r.hosts = std::move(list);
  r.num_ranks = n;
  return r;
}

Placement place_ok(const PlacementRequest& r) {
  PlacementResult out = place_ranks(r, local_is_a);
  EXPECT_EQ(out.error, "");
  // node_of_rank agrees with every node's list.
  const Placement& p = out.placement;
  for (size_t node = 0; node < p.nodes.size(); ++node)
    for (int rank : p.nodes[node].ranks) {
      EXPECT_LT(size_t(rank), p.node_of_rank.size());
      if (size_t(rank) < p.node_of_rank.size()) EXPECT_EQ(p.node_of_rank[size_t(rank)], int(node));
    }
  return p;
}

std::string place_error(const PlacementRequest& r) {
  PlacementResult out = place_ranks(r, local_is_a);
  EXPECT_EQ(out.error.rfind("mpirun: ", 0), 0u) << out.error;
  EXPECT_TRUE(out.placement.nodes.empty());
  return out.error;
}

TEST(Placement, NoHostsIsThisHostWithoutLimit) {
  Placement p = place_ok(request({}, 0));
  ASSERT_EQ(p.nodes.size(), 1u);
  EXPECT_TRUE(p.nodes[0].local);
  EXPECT_EQ(p.nodes[0].ranks, (Ranks{0}));
  p = place_ok(request({}, 300));
  ASSERT_EQ(p.nodes.size(), 1u);
  EXPECT_EQ(p.nodes[0].ranks.size(), 300u);
  EXPECT_EQ(p.node_of_rank.size(), 300u);
  EXPECT_FALSE(p.oversubscribed);
}

TEST(Placement, BySlotFillsEachHostInOrder) {
  Placement p = place_ok(request({host("a", 2), host("b", 3), host("c", 4)}, 4));
  ASSERT_EQ(p.nodes.size(), 2u);  // c runs nothing
  EXPECT_EQ(p.nodes[0].host.name, "a");
  EXPECT_EQ(p.nodes[0].ranks, (Ranks{0, 1}));
  EXPECT_EQ(p.nodes[1].host.name, "b");
  EXPECT_EQ(p.nodes[1].ranks, (Ranks{2, 3}));
  EXPECT_EQ(p.node_of_rank, (Ranks{0, 0, 1, 1}));
  EXPECT_FALSE(p.oversubscribed);
}

TEST(Placement, CoreSocketNumaPlaceHostsLikeSlot) {
  for (MapBy m : {MapBy::kCore, MapBy::kSocket, MapBy::kNuma}) {
    PlacementRequest r = request({host("a", 2), host("b", 2)}, 3);
    r.map_by = m;
    EXPECT_EQ(place_ok(r).node_of_rank, (Ranks{0, 0, 1}));
  }
}

TEST(Placement, ByNodeGoesRoundTheHostsSkippingFullOnes) {
  PlacementRequest r = request({host("a", 1), host("b", 3), host("c", 2)}, 6);
  r.map_by = MapBy::kNode;
  Placement p = place_ok(r);
  ASSERT_EQ(p.nodes.size(), 3u);
  EXPECT_EQ(p.nodes[0].ranks, (Ranks{0}));
  EXPECT_EQ(p.nodes[1].ranks, (Ranks{1, 3, 5}));
  EXPECT_EQ(p.nodes[2].ranks, (Ranks{2, 4}));
  EXPECT_FALSE(p.oversubscribed);
}

TEST(Placement, NoRankCountMeansOnePerSlot) {
  Placement p = place_ok(request({host("a", 2), host("b", 3)}, 0));
  EXPECT_EQ(p.node_of_rank, (Ranks{0, 0, 1, 1, 1}));
  PlacementRequest r = request({host("a", 2), host("b", 3)}, 0);
  r.ranks_per_node = 4;  // Open MPI: N per node
  r.oversubscribe = true;
  EXPECT_EQ(place_ok(r).node_of_rank, (Ranks{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(Placement, PerNodeFillsNOnEachHostInTurn) {
  PlacementRequest r = request({host("a", 8), host("b", 8), host("c", 8)}, 5);
  r.ranks_per_node = 2;
  Placement p = place_ok(r);
  ASSERT_EQ(p.nodes.size(), 3u);
  EXPECT_EQ(p.nodes[0].ranks, (Ranks{0, 1}));
  EXPECT_EQ(p.nodes[1].ranks, (Ranks{2, 3}));
  EXPECT_EQ(p.nodes[2].ranks, (Ranks{4}));
  EXPECT_FALSE(p.oversubscribed);
}

TEST(Placement, PerNodeReplacesSlotsAndWrapsOnlyWhenOversubscribed) {
  PlacementRequest r = request({host("a", 1), host("b", 1)}, 4);
  r.ranks_per_node = 2;  // above the slots: allowed, the count was asked for
  Placement p = place_ok(r);
  EXPECT_EQ(p.node_of_rank, (Ranks{0, 0, 1, 1}));
  EXPECT_TRUE(p.oversubscribed);

  r.num_ranks = 6;
  EXPECT_EQ(place_error(r),
            "mpirun: 6 ranks requested but --ppn 2 on 2 hosts (hosts:1-2) places only 4; add hosts or use "
            "--oversubscribe");
  r.oversubscribe = true;
  EXPECT_EQ(place_ok(r).node_of_rank, (Ranks{0, 0, 1, 1, 0, 0}));
}

TEST(Placement, PerNodeRespectsMaxSlots) {
  PlacementRequest r = request({host("a", 1), host("b", 1, 1)}, 4);
  r.ranks_per_node = 2;
  EXPECT_EQ(place_error(r), "mpirun: --ppn 2 puts 2 ranks on 'b' but its max_slots is 1 (hosts:2)");
  r.num_ranks = 3;  // b gets one: fine
  EXPECT_EQ(place_ok(r).node_of_rank, (Ranks{0, 0, 1}));
}

TEST(Placement, TooFewSlotsIsRefusedNamingTheSource) {
  EXPECT_EQ(place_error(request({host("a", 2), host("b", 2), host("c", 2)}, 8)),
            "mpirun: 8 ranks requested but the hosts have only 6 slots (hosts:1-3); add slots or use --oversubscribe");
  PlacementRequest r = request({host("a", 1), host("c", 1)}, 3);
  r.map_by = MapBy::kNode;
  EXPECT_EQ(place_error(r),
            "mpirun: 3 ranks requested but the hosts have only 2 slots (hosts:1,3); add slots or use --oversubscribe");
  hosts::HostEntry h = host("x", 1);
  h.origin = "-H";
  EXPECT_EQ(place_error(request({h}, 2)),
            "mpirun: 2 ranks requested but the hosts have only 1 slot (-H); add slots or use --oversubscribe");
}

TEST(Placement, OversubscribedBySlotSpreadsTheRestEvenly) {
  PlacementRequest r = request({host("a", 2), host("b", 1), host("c", 1)}, 9);
  r.oversubscribe = true;
  Placement p = place_ok(r);
  // 4 slots, 5 more: a and b get 2 more, c 1 (Open MPI's byslot), numbered
  // after the slots, host by host.
  ASSERT_EQ(p.nodes.size(), 3u);
  EXPECT_EQ(p.nodes[0].ranks, (Ranks{0, 1, 4, 5}));
  EXPECT_EQ(p.nodes[1].ranks, (Ranks{2, 6, 7}));
  EXPECT_EQ(p.nodes[2].ranks, (Ranks{3, 8}));
  EXPECT_TRUE(p.oversubscribed);
}

TEST(Placement, OversubscribedByNodeKeepsGoingRound) {
  PlacementRequest r = request({host("a", 1), host("b", 2)}, 6);
  r.map_by = MapBy::kNode;
  r.oversubscribe = true;
  Placement p = place_ok(r);
  EXPECT_EQ(p.nodes[0].ranks, (Ranks{0, 3, 5}));
  EXPECT_EQ(p.nodes[1].ranks, (Ranks{1, 2, 4}));
  EXPECT_TRUE(p.oversubscribed);
}

TEST(Placement, MaxSlotsIsNeverExceeded) {
  PlacementRequest r = request({host("a", 1, 2), host("b", 1)}, 6);
  r.oversubscribe = true;
  Placement p = place_ok(r);
  EXPECT_EQ(p.nodes[0].ranks, (Ranks{0, 2}));
  EXPECT_EQ(p.nodes[1].ranks, (Ranks{1, 3, 4, 5}));

  r.hosts = {host("a", 1, 2), host("b", 1, 3)};
  EXPECT_EQ(place_error(r), "mpirun: 6 ranks requested but the hosts' max_slots allow only 5 (hosts:1-2)");
  r.map_by = MapBy::kNode;
  EXPECT_EQ(place_error(r), "mpirun: 6 ranks requested but the hosts' max_slots allow only 5 (hosts:1-2)");
  r.num_ranks = 5;
  p = place_ok(r);
  EXPECT_EQ(p.nodes[0].ranks, (Ranks{0, 2}));
  EXPECT_EQ(p.nodes[1].ranks, (Ranks{1, 3, 4}));
}

TEST(Placement, LocalFlagComesFromIsLocal) {
  Placement p = place_ok(request({host("b", 1), host("a", 1)}, 2));
  ASSERT_EQ(p.nodes.size(), 2u);
  EXPECT_FALSE(p.nodes[0].local);
  EXPECT_TRUE(p.nodes[1].local);
}

TEST(Placement, HugeJobsAreRefused) {
  hosts::HostEntry h = host("a", 1);
  EXPECT_EQ(place_error(request({h}, 1 << 23)).find("mpirun: 8388608 ranks is more than one job can run"), 0u);
}

TEST(IsThisHost, LoopbackAndOwnName) {
  EXPECT_TRUE(is_this_host("localhost"));
  EXPECT_TRUE(is_this_host("127.0.0.1"));
  EXPECT_TRUE(is_this_host("127.1.2.3"));
  EXPECT_TRUE(is_this_host("::1"));
  EXPECT_FALSE(is_this_host(""));
  EXPECT_FALSE(is_this_host("192.0.2.77"));  // TEST-NET-1: never assigned
  EXPECT_FALSE(is_this_host("no-such-host-ferry-test.invalid"));
  char name[256] = {};
  ASSERT_EQ(gethostname(name, sizeof name - 1), 0);
  std::string full = name;
  EXPECT_TRUE(is_this_host(full));
  EXPECT_TRUE(is_this_host(full.substr(0, full.find('.'))));
  EXPECT_TRUE(is_this_host(full.substr(0, full.find('.')) + ".some.domain"));
}

}  // namespace
}  // namespace ferry::launcher
