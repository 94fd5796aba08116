// The Slurm allocation as a host list: hostlist expressions and
// SLURM_TASKS_PER_NODE counts, and the refusals of malformed values.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "launcher/hosts/slurm_allocation.h"

namespace ferry::launcher {
namespace {

using Names = std::vector<std::string>;
using Env = std::map<std::string, std::string>;

EnvironmentLookup lookup_in(const Env& env) {
  return [env](const char* name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

Names expand_ok(std::string_view expression) {
  std::string error;
  Names names = expand_hostlist(expression, error);
  EXPECT_EQ(error, "") << expression;
  return names;
}

std::string expand_error(std::string_view expression) {
  std::string error;
  Names names = expand_hostlist(expression, error);
  EXPECT_TRUE(names.empty()) << expression;
  return error;
}

TEST(SlurmHostlist, ExpandsRangesKeepingZeroPadding) {
  EXPECT_EQ(expand_ok("node[01-03,7],gpu5"), (Names{"node01", "node02", "node03", "node7", "gpu5"}));
  EXPECT_EQ(expand_ok("n[8-11]"), (Names{"n8", "n9", "n10", "n11"}));
  EXPECT_EQ(expand_ok("n[08-10]"), (Names{"n08", "n09", "n10"}));
  EXPECT_EQ(expand_ok("n[098-101]"), (Names{"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(expand_ok("single"), (Names{"single"}));
  EXPECT_EQ(expand_ok("a,b[2],c"), (Names{"a", "b2", "c"}));
}

TEST(SlurmHostlist, SeveralBracketGroupsVaryRightmostFastest) {
  EXPECT_EQ(expand_ok("rack[1-2]-n[1-2]"), (Names{"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"}));
  EXPECT_EQ(expand_ok("r[0-1]n[3,5].ib"), (Names{"r0n3.ib", "r0n5.ib", "r1n3.ib", "r1n5.ib"}));
}

TEST(SlurmHostlist, MalformedExpressions) {
  EXPECT_EQ(expand_error(""), "it is empty");
  EXPECT_EQ(expand_error("n[1-3"), "'n[1-3' lacks a closing ']'");
  EXPECT_EQ(expand_error("n1-3]"), "'n1-3]' has a ']' without '['");
  EXPECT_EQ(expand_error("n[3-1]"), "the range '3-1' runs backwards");
  EXPECT_EQ(expand_error("n[a-b]"), "'[a-b]' has 'a-b', not a number or range N-M");
  EXPECT_EQ(expand_error("n[1,,2]"), "'[1,,2]' has '', not a number or range N-M");
  EXPECT_EQ(expand_error("n[]"), "'[]' has '', not a number or range N-M");
  EXPECT_EQ(expand_error("n[1-2[3]]"), "'n[1-2[3]]' nests brackets");
  EXPECT_EQ(expand_error("a,,b"), "an empty host name");
  EXPECT_EQ(expand_error("n[1-1000000000]"), "the range '1-1000000000' is too large");
  EXPECT_EQ(expand_error("a[1-1000]b[1-1000]"), "'a[1-1000]b[1-1000]' names too many hosts");
}

TEST(SlurmAllocation, NothingOutsideAnAllocation) {
  EXPECT_FALSE(slurm_allocation(lookup_in({{"SLURM_TASKS_PER_NODE", "2"}})).has_value());
}

TEST(SlurmAllocation, HostsWithTaskCountsAsSlots) {
  auto r = slurm_allocation(lookup_in({{"SLURM_JOB_NODELIST", "node[01-03],gpu7"},
                                       {"SLURM_TASKS_PER_NODE", "2(x3),1"}}));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error, "");
  ASSERT_EQ(r->hosts.size(), 4u);
  EXPECT_EQ(r->hosts[0].name, "node01");
  EXPECT_EQ(r->hosts[2].name, "node03");
  EXPECT_EQ(r->hosts[3].name, "gpu7");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r->hosts[i].slots, 2) << i;
  EXPECT_EQ(r->hosts[3].slots, 1);
  EXPECT_TRUE(r->hosts[0].slots_given);
  EXPECT_EQ(r->hosts[0].origin, "SLURM_JOB_NODELIST");
  EXPECT_EQ(r->hosts[0].max_slots, 0);
}

TEST(SlurmAllocation, OlderVariableAndNoCounts) {
  auto r = slurm_allocation(lookup_in({{"SLURM_NODELIST", "c[1-2]"}}));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error, "");
  ASSERT_EQ(r->hosts.size(), 2u);
  EXPECT_EQ(r->hosts[1].name, "c2");
  EXPECT_EQ(r->hosts[1].slots, 1);
  EXPECT_FALSE(r->hosts[1].slots_given);
  EXPECT_EQ(r->hosts[1].origin, "SLURM_NODELIST");
  // The job's variable wins over the older one.
  auto both = slurm_allocation(lookup_in({{"SLURM_NODELIST", "old"}, {"SLURM_JOB_NODELIST", "new"}}));
  ASSERT_TRUE(both.has_value());
  ASSERT_EQ(both->hosts.size(), 1u);
  EXPECT_EQ(both->hosts[0].name, "new");
}

TEST(SlurmAllocation, MalformedValuesAreNamed) {
  auto error_of = [](const Env& env) {
    auto r = slurm_allocation(lookup_in(env));
    EXPECT_TRUE(r.has_value());
    if (!r) return std::string();
    EXPECT_TRUE(r->hosts.empty());
    return r->error;
  };
  EXPECT_EQ(error_of({{"SLURM_JOB_NODELIST", "n[1-"}}), "SLURM_JOB_NODELIST 'n[1-': 'n[1-' lacks a closing ']'");
  EXPECT_EQ(error_of({{"SLURM_JOB_NODELIST", "n[1-3]"}, {"SLURM_TASKS_PER_NODE", "2(x2)"}}),
            "SLURM_TASKS_PER_NODE '2(x2)' gives 2 counts for the 3 hosts of SLURM_JOB_NODELIST");
  EXPECT_EQ(error_of({{"SLURM_JOB_NODELIST", "n1"}, {"SLURM_TASKS_PER_NODE", "2(3)"}}),
            "SLURM_TASKS_PER_NODE '2(3)': '2(3)' is not N or N(xM)");
  EXPECT_EQ(error_of({{"SLURM_JOB_NODELIST", "n1"}, {"SLURM_TASKS_PER_NODE", "x"}}),
            "SLURM_TASKS_PER_NODE 'x': 'x' is not N or N(xM)");
  EXPECT_EQ(error_of({{"SLURM_JOB_NODELIST", "n1"}, {"SLURM_TASKS_PER_NODE", "0"}}),
            "SLURM_TASKS_PER_NODE '0': '0' is not N or N(xM)");
  EXPECT_EQ(error_of({{"SLURM_JOB_NODELIST", "n[1-2]"}, {"SLURM_TASKS_PER_NODE", "1(x0),2"}}),
            "SLURM_TASKS_PER_NODE '1(x0),2': '1(x0)' is not N or N(xM)");
}

}  // namespace
}  // namespace ferry::launcher
