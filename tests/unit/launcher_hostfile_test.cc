// Host lists: hostfiles in Open MPI's and Hydra's dialects, the -H list, the
// merging of a host named twice, and errors that name the file and line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/hostfile.h"

namespace ferry::hosts {
namespace {

HostListResult parse_ok(std::string_view text) {
  HostListResult r = parse_hostfile(text, "hosts");
  EXPECT_EQ(r.error, "");
  return r;
}

std::string parse_error(std::string_view text) {
  HostListResult r = parse_hostfile(text, "hosts");
  EXPECT_TRUE(r.hosts.empty());
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  return r.error;
}

TEST(Hostfile, OpenMpiDialect) {
  HostListResult r = parse_ok("node1 slots=4 max_slots=8\nnode2 slots=2\nnode3 max-slots=3\n");
  ASSERT_EQ(r.hosts.size(), 3u);
  EXPECT_EQ(r.hosts[0].name, "node1");
  EXPECT_EQ(r.hosts[0].slots, 4);
  EXPECT_EQ(r.hosts[0].max_slots, 8);
  EXPECT_TRUE(r.hosts[0].slots_given);
  EXPECT_EQ(r.hosts[0].origin, "hosts:1");
  EXPECT_EQ(r.hosts[1].slots, 2);
  EXPECT_EQ(r.hosts[1].max_slots, 0);
  EXPECT_EQ(r.hosts[2].slots, 1);  // no count: one slot
  EXPECT_FALSE(r.hosts[2].slots_given);
  EXPECT_EQ(r.hosts[2].max_slots, 3);
  EXPECT_EQ(r.hosts[2].origin, "hosts:3");
}

TEST(Hostfile, OpenMpiSpellingsAndBlanksAroundEquals) {
  HostListResult r = parse_ok("a slots = 3 slots_max= 5\nb count=2 slots-max =2\nc cpu=7\n");
  ASSERT_EQ(r.hosts.size(), 3u);
  EXPECT_EQ(r.hosts[0].slots, 3);
  EXPECT_EQ(r.hosts[0].max_slots, 5);
  EXPECT_EQ(r.hosts[1].slots, 2);
  EXPECT_EQ(r.hosts[1].max_slots, 2);
  EXPECT_EQ(r.hosts[2].slots, 7);
}

TEST(Hostfile, HydraDialect) {
  HostListResult r = parse_ok("n1:4\nn2\nn3:1\n");
  ASSERT_EQ(r.hosts.size(), 3u);
  EXPECT_EQ(r.hosts[0].name, "n1");
  EXPECT_EQ(r.hosts[0].slots, 4);
  EXPECT_TRUE(r.hosts[0].slots_given);
  EXPECT_EQ(r.hosts[1].slots, 1);
  EXPECT_FALSE(r.hosts[1].slots_given);
  EXPECT_EQ(r.hosts[2].slots, 1);
  EXPECT_TRUE(r.hosts[2].slots_given);
}

TEST(Hostfile, CommentsBlankLinesAndSpaces) {
  HostListResult r = parse_ok("# cluster\n\n   \n  n1 slots=2   # two cores\r\n\tn2:3\t\n#n3\nn4#no space\n");
  ASSERT_EQ(r.hosts.size(), 3u);
  EXPECT_EQ(r.hosts[0].name, "n1");
  EXPECT_EQ(r.hosts[0].slots, 2);
  EXPECT_EQ(r.hosts[0].origin, "hosts:4");
  EXPECT_EQ(r.hosts[1].name, "n2");
  EXPECT_EQ(r.hosts[1].slots, 3);
  EXPECT_EQ(r.hosts[1].origin, "hosts:5");
  EXPECT_EQ(r.hosts[2].name, "n4");
  EXPECT_EQ(r.hosts[2].origin, "hosts:7");
}

TEST(Hostfile, NoFinalNewlineAndAddresses) {
  HostListResult r = parse_ok("user@n1 slots=2\n10.0.0.7:3\nfe80::1\n[::1]:2");
  ASSERT_EQ(r.hosts.size(), 4u);
  EXPECT_EQ(r.hosts[0].name, "user@n1");
  EXPECT_EQ(r.hosts[1].name, "10.0.0.7");
  EXPECT_EQ(r.hosts[1].slots, 3);
  EXPECT_EQ(r.hosts[2].name, "fe80::1");  // two colons: an IPv6 address, not HOST:N
  EXPECT_EQ(r.hosts[2].slots, 1);
  EXPECT_EQ(r.hosts[3].name, "::1");
  EXPECT_EQ(r.hosts[3].slots, 2);
}

TEST(Hostfile, AHostNamedTwiceIsMergedInFirstOrder) {
  HostListResult r = parse_ok("a slots=2\nb\na:3\nb\nc\na\n");
  ASSERT_EQ(r.hosts.size(), 3u);
  EXPECT_EQ(r.hosts[0].name, "a");
  EXPECT_EQ(r.hosts[0].slots, 6);
  EXPECT_EQ(r.hosts[0].origin, "hosts:1");
  EXPECT_EQ(r.hosts[1].name, "b");
  EXPECT_EQ(r.hosts[1].slots, 2);
  EXPECT_FALSE(r.hosts[1].slots_given);
  EXPECT_EQ(r.hosts[2].name, "c");
  // A later max_slots replaces an earlier one.
  HostListResult m = parse_ok("a slots=2 max_slots=2\na slots=1 max_slots=6\n");
  ASSERT_EQ(m.hosts.size(), 1u);
  EXPECT_EQ(m.hosts[0].slots, 3);
  EXPECT_EQ(m.hosts[0].max_slots, 6);
}

TEST(Hostfile, EveryErrorNamesFileAndLine) {
  EXPECT_EQ(parse_error("n1\nn2 slots=x\n"), "hosts:2: 'x' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error("n1 slots=0"), "hosts:1: '0' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error("\nn1 slots=-2"), "hosts:2: '-2' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error("n1 slots=2x"), "hosts:1: '2x' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error("n1 slots=99999999999"),
            "hosts:1: '99999999999' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error("n1:"), "hosts:1: '' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error("n1:two"), "hosts:1: 'two' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error("n1 max_slots=y"), "hosts:1: max_slots 'y' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error("n1 slots=4 max_slots=2"), "hosts:1: 'n1' has slots=4 above max_slots=2");
  EXPECT_EQ(parse_error("n1 port=22"), "hosts:1: unknown setting 'port=22' (known: slots=N, max_slots=N)");
  EXPECT_EQ(parse_error("n1 slots"), "hosts:1: unknown setting 'slots' (known: slots=N, max_slots=N)");
  EXPECT_EQ(parse_error("n1 n2"), "hosts:1: unknown setting 'n2' (known: slots=N, max_slots=N)");
  EXPECT_EQ(parse_error("n1 slots=1 slots=2"), "hosts:1: slots given twice for 'n1'");
  EXPECT_EQ(parse_error("n1:2 slots=2"), "hosts:1: slots given twice for 'n1'");
  EXPECT_EQ(parse_error("n1 max_slots=3 max-slots=4"), "hosts:1: max_slots given twice for 'n1'");
  EXPECT_EQ(parse_error("slots=4"), "hosts:1: 'slots=4' where a host name should come first");
  EXPECT_EQ(parse_error(":4"), "hosts:1: ':4' has no host name");
  EXPECT_EQ(parse_error("[::1"), "hosts:1: '[::1' lacks the closing ']'");
  EXPECT_EQ(parse_error("[::1]x"), "hosts:1: '[::1]x': expected [ADDRESS] or [ADDRESS]:SLOTS");
  EXPECT_EQ(parse_error("n1 slots=2 max_slots=3\nn2\nn1 slots=2\n"),
            "hosts:3: 'n1' has 4 slots in all (first at hosts:1), above max_slots=3");
  EXPECT_EQ(parse_error("# nothing\n\n"), "hosts: names no host");
  EXPECT_EQ(parse_error(""), "hosts: names no host");
}

TEST(Hostfile, ReadsAFileAndNamesItInErrors) {
  std::string path = ::testing::TempDir() + "launcher_hostfile_test_hosts";
  std::ofstream(path) << "n1:2\nn2 slots=bad\n";
  HostListResult r = read_hostfile(path);
  EXPECT_EQ(r.error, path + ":2: 'bad' is not a number of slots (1 to 1048576)");
  std::ofstream(path) << "n1:2\nn2 slots=3\n";
  r = read_hostfile(path);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.hosts.size(), 2u);
  EXPECT_EQ(r.hosts[1].origin, path + ":2");
  EXPECT_EQ(r.hosts[1].slots, 3);
  std::remove(path.c_str());
  r = read_hostfile(path);
  EXPECT_EQ(r.error, "cannot read hostfile '" + path + "': No such file or directory");
}

TEST(HostOption, EachMentionIsOneSlotUnlessCounted) {
  HostListResult r = parse_host_option("h1:2,h2,h1,h3:4");
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.hosts.size(), 3u);
  EXPECT_EQ(r.hosts[0].name, "h1");
  EXPECT_EQ(r.hosts[0].slots, 3);
  EXPECT_EQ(r.hosts[0].origin, "-H");
  EXPECT_EQ(r.hosts[1].name, "h2");
  EXPECT_EQ(r.hosts[1].slots, 1);
  EXPECT_FALSE(r.hosts[1].slots_given);
  EXPECT_EQ(r.hosts[2].slots, 4);
  EXPECT_TRUE(r.hosts[2].slots_given);
}

TEST(HostOption, Errors) {
  EXPECT_EQ(parse_host_option("h1,,h2").error, "-H 'h1,,h2' has an empty host name");
  EXPECT_EQ(parse_host_option("").error, "-H '' has an empty host name");
  EXPECT_EQ(parse_host_option("h1,").error, "-H 'h1,' has an empty host name");
  EXPECT_EQ(parse_host_option("h1:x").error, "-H 'h1:x': 'x' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_host_option("h1:0").error, "-H 'h1:0': '0' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_host_option("a b").error, "-H 'a b': 'a b' is not a host name");
  EXPECT_TRUE(parse_host_option("h1:x").hosts.empty());
}

TEST(AddHost, MergesByName) {
  std::vector<HostEntry> list;
  EXPECT_EQ(add_host(list, {"a", 2, 3, true, "f:1"}), "");
  EXPECT_EQ(add_host(list, {"b", 1, 0, false, "f:2"}), "");
  EXPECT_EQ(add_host(list, {"a", 1, 0, false, "-H"}), "");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].slots, 3);
  EXPECT_EQ(list[0].max_slots, 3);
  EXPECT_EQ(add_host(list, {"a", 1, 0, false, "-H"}), "-H: 'a' has 4 slots in all (first at f:1), above max_slots=3");
}

}  // namespace
}  // namespace ferry::hosts
