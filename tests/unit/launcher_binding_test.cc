// Where --bind-to / --map-by put a host's ranks, what --report-bindings says,
// and that a spawned rank really runs on its cpus. Topologies are hwloc
// synthetic ones, so that the answers do not depend on the test machine.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "launcher/ranks/binding.h"
#include "launcher/ranks/binding_report.h"
#include "launcher/ranks/spawn.h"

namespace ferry::launcher {
namespace {

constexpr const char* kNotBound = "is not bound (or bound to all available processors)";

class Topology {
 public:
  explicit Topology(const char* synthetic, const char* allowed = nullptr) {
    hwloc_topology_init(&topo_);
    if (allowed != nullptr) hwloc_topology_set_flags(topo_, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    EXPECT_EQ(hwloc_topology_set_synthetic(topo_, synthetic), 0) << synthetic;
    EXPECT_EQ(hwloc_topology_load(topo_), 0);
    if (allowed != nullptr) {
      // As a cgroup cpuset would restrict it.
      hwloc_bitmap_t set = hwloc_bitmap_alloc();
      hwloc_bitmap_list_sscanf(set, allowed);
      EXPECT_EQ(hwloc_topology_allow(topo_, set, nullptr, HWLOC_ALLOW_FLAG_CUSTOM), 0);
      hwloc_bitmap_free(set);
    }
  }
  ~Topology() { hwloc_topology_destroy(topo_); }
  operator hwloc_topology_t() const { return topo_; }

 private:
  hwloc_topology_t topo_;
};

// "0-3,8" for a bound rank, "" for an unbound one.
std::string cpus(const RankBinding& b) {
  if (!b.bound) return "";
  std::string out;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (!CPU_ISSET(i, &b.cpus)) continue;
    int last = i;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &b.cpus)) ++last;
    if (!out.empty()) out += ",";
    out += std::to_string(i) + (last > i ? "-" + std::to_string(last) : "");
    i = last;
  }
  return out;
}

std::vector<std::string> all_cpus(const BindingResult& r) {
  std::vector<std::string> out;
  for (const RankBinding& b : r.bindings) out.push_back(cpus(b));
  return out;
}

using Cpus = std::vector<std::string>;

constexpr const char* kTwoSockets = "package:2 core:4 pu:2";  // PUs 0-7 and 8-15

TEST(LauncherBinding, DefaultBindsTwoRanksToCores) {
  Topology t(kTwoSockets);
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kDefault, 2, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"0-1", "2-3"}));
  EXPECT_EQ(r.bindings[0].description, "bound to socket 0[core 0[hwt 0-1]]: [BB/../../..][../../../..]");
  EXPECT_EQ(r.bindings[1].description, "bound to socket 0[core 1[hwt 0-1]]: [../BB/../..][../../../..]");
}

TEST(LauncherBinding, DefaultBindsMoreRanksToSocketsInBlocks) {
  Topology t(kTwoSockets);
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kDefault, 4, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"0-7", "0-7", "8-15", "8-15"}));
  EXPECT_EQ(r.bindings[2].description,
            "bound to socket 1[core 0[hwt 0-1]], socket 1[core 1[hwt 0-1]], socket 1[core 2[hwt 0-1]], "
            "socket 1[core 3[hwt 0-1]]: [../../../..][BB/BB/BB/BB]");
  // Uneven: the first socket takes the extra rank.
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kNode, BindTo::kDefault, 3, false)),
            (Cpus{"0-7", "0-7", "8-15"}));
}

TEST(LauncherBinding, DefaultBindsNothingWhenOversubscribed) {
  Topology t(kTwoSockets);
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kDefault, 2, true);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.bindings.size(), 2u);
  EXPECT_FALSE(r.bindings[0].bound);
  EXPECT_EQ(r.bindings[0].description, kNotBound);
}

TEST(LauncherBinding, DefaultBindsNothingRatherThanOverloading) {
  // 3 ranks on one 2-core socket: the default would overload it.
  Topology t("package:1 core:2 pu:1");
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kDefault, 3, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"", "", ""}));
}

TEST(LauncherBinding, DefaultFollowsAnExplicitMapBy) {
  Topology t(kTwoSockets);
  // Open MPI binds to the mapping object when only --map-by is given.
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kSocket, BindTo::kDefault, 2, false)), (Cpus{"0-7", "8-15"}));
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kCore, BindTo::kDefault, 4, false)),
            (Cpus{"0-1", "2-3", "4-5", "6-7"}));
}

TEST(LauncherBinding, ExplicitCoreFillsCoresInOrder) {
  Topology t(kTwoSockets);
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kCore, 6, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"0-1", "2-3", "4-5", "6-7", "8-9", "10-11"}));
  EXPECT_EQ(r.bindings[4].description, "bound to socket 1[core 0[hwt 0-1]]: [../../../..][BB/../../..]");
}

TEST(LauncherBinding, ExplicitSocket) {
  Topology t(kTwoSockets);
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kSlot, BindTo::kSocket, 2, false)), (Cpus{"0-7", "8-15"}));
  // Mapped by core, bound upwards to the socket holding the core.
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kCore, BindTo::kSocket, 2, false)), (Cpus{"0-7", "0-7"}));
}

TEST(LauncherBinding, ExplicitNone) {
  Topology t(kTwoSockets);
  BindingResult r = compute_bindings(t, MapBy::kCore, BindTo::kNone, 2, false);
  EXPECT_EQ(all_cpus(r), (Cpus{"", ""}));
  EXPECT_EQ(r.bindings[1].description, kNotBound);
}

TEST(LauncherBinding, MapBySocketRoundRobinsAndTakesEachSocketsNextCore) {
  Topology t(kTwoSockets);
  BindingResult r = compute_bindings(t, MapBy::kSocket, BindTo::kCore, 4, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"0-1", "8-9", "2-3", "10-11"}));
  EXPECT_EQ(r.bindings[3].description, "bound to socket 1[core 1[hwt 0-1]]: [../../../..][../BB/../..]");
}

constexpr const char* kNumaSockets = "package:2 numa:2 core:2 pu:1";  // NUMA 0-3, 2 PUs each

TEST(LauncherBinding, BindToNuma) {
  Topology t(kNumaSockets);
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kNuma, 4, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"0-1", "2-3", "4-5", "6-7"}));
  EXPECT_EQ(r.bindings[1].description, "bound to socket 0[core 2[hwt 0]], socket 0[core 3[hwt 0]]: [././B/B][./././.]");
  // Mapped by socket: round robin over sockets, then over each one's nodes.
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kSocket, BindTo::kNuma, 4, false)),
            (Cpus{"0-1", "4-5", "2-3", "6-7"}));
  // Mapped by NUMA node, bound to the socket holding it.
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kNuma, BindTo::kSocket, 3, false)),
            (Cpus{"0-3", "0-3", "4-7"}));
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kNuma, BindTo::kDefault, 2, false)), (Cpus{"0-1", "2-3"}));
}

TEST(LauncherBinding, NumaWithoutNumaObjectsIsTheWholeMachine) {
  // hwloc always has one NUMA node; here it spans both sockets.
  Topology t(kTwoSockets);
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kSlot, BindTo::kNuma, 2, false)), (Cpus{"0-15", "0-15"}));
}

TEST(LauncherBinding, SocketFallsBackToNumaWithoutPackages) {
  Topology t("numa:2 core:2 pu:1");
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kSocket, 2, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"0-1", "2-3"}));
  // Without packages the report shows the machine as one socket.
  EXPECT_EQ(r.bindings[1].description, "bound to socket 0[core 2[hwt 0]], socket 0[core 3[hwt 0]]: [././B/B]");
}

TEST(LauncherBinding, BindingTheWholeMachineReadsAsNotBound) {
  Topology t("package:1 core:2 pu:1");
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kSocket, 2, false);
  EXPECT_EQ(all_cpus(r), (Cpus{"0-1", "0-1"}));
  EXPECT_EQ(r.bindings[0].description, kNotBound);
}

TEST(LauncherBinding, ExplicitOverloadIsAnError) {
  Topology t("package:1 core:2 pu:1");
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kCore, 3, false);
  EXPECT_TRUE(r.bindings.empty());
  EXPECT_EQ(r.error,
            "mpirun: --bind-to core would put 2 ranks on core 0, which has 1 core; "
            "use --bind-to none, or --oversubscribe to share cores");
  EXPECT_NE(compute_bindings(t, MapBy::kSocket, BindTo::kSocket, 3, false).error, "");
  EXPECT_NE(compute_bindings(t, MapBy::kCore, BindTo::kCore, 3, false).error, "");
  EXPECT_NE(compute_bindings(t, MapBy::kSlot, BindTo::kCore, -1, false).error, "");
}

TEST(LauncherBinding, OversubscribedHostSharesCores) {
  Topology t("package:1 core:2 pu:1");
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kCore, 3, true);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"0", "0", "1"}));
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kCore, BindTo::kCore, 3, true)), (Cpus{"0", "1", "0"}));
}

TEST(LauncherBinding, OnlyAllowedCpusAreUsed) {
  // A cpuset (cgroup, container) without the first core and a half of the
  // second.
  Topology t(kTwoSockets, "3-15");
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kCore, 2, false);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(all_cpus(r), (Cpus{"3", "4-5"}));
  EXPECT_EQ(r.bindings[0].description, "bound to socket 0[core 1[hwt 1]]: [../.B/../..][../../../..]");
  EXPECT_EQ(all_cpus(compute_bindings(t, MapBy::kSlot, BindTo::kSocket, 2, false)), (Cpus{"3-7", "8-15"}));
}

TEST(LauncherBinding, NoRanks) {
  Topology t(kTwoSockets);
  BindingResult r = compute_bindings(t, MapBy::kSlot, BindTo::kCore, 0, false);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.bindings.empty());
}

// Spawns `/bin/sh -c script` with stdout into a pipe; returns the output
// and the spawn result.
struct Spawned {
  SpawnResult result;
  std::string output;
};

Spawned spawn_shell(const char* script, const cpu_set_t* cpu_set) {
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  const char* argv[] = {"/bin/sh", "-c", script, nullptr};
  char* envp[] = {nullptr};
  sigset_t mask;
  sigemptyset(&mask);
  RankLaunch launch{"/bin/sh", const_cast<char* const*>(argv), envp, 0, out[1], 2, nullptr, &mask, true,
                    nullptr, cpu_set};
  Spawned s;
  s.result = spawn_rank(launch);
  ::close(out[1]);
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) s.output.append(buf, size_t(n));
  ::close(out[0]);
  if (s.result.pid > 0) ::waitpid(s.result.pid, nullptr, 0);
  return s;
}

TEST(LauncherBindingSpawn, RankRunsOnItsCpus) {
  cpu_set_t mine;
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &mine)) ++cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  Spawned s = spawn_shell("grep Cpus_allowed_list /proc/self/status", &one);
  ASSERT_EQ(s.result.error, 0) << s.result.step;
  EXPECT_EQ(s.output, "Cpus_allowed_list:\t" + std::to_string(cpu) + "\n");
}

TEST(LauncherBindingSpawn, UnboundRankKeepsMpirunsCpus) {
  Spawned s = spawn_shell("grep -c Cpus_allowed_list /proc/self/status", nullptr);
  ASSERT_EQ(s.result.error, 0) << s.result.step;
  EXPECT_EQ(s.output, "1\n");
}

TEST(LauncherBindingSpawn, ImpossibleBindingIsReportedAsItsStep) {
  // No cpu this machine has: the kernel refuses the mask.
  cpu_set_t none;
  CPU_ZERO(&none);
  Spawned s = spawn_shell("echo ran", &none);
  EXPECT_EQ(s.result.error, EINVAL);
  EXPECT_STREQ(s.result.step, "sched_setaffinity");
  EXPECT_EQ(s.output, "");
}

}  // namespace
}  // namespace ferry::launcher
