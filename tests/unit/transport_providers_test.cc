// The list of transport providers (transport/providers.h): FERRY_TRANSPORTS
// picks from it, self is always first, and routes prefer the list's order.
#include "transport/providers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ferry::transport {
namespace {

std::vector<std::string> names(const std::string& list) {
  std::vector<const Provider*> enabled;
  std::string error;
  EXPECT_TRUE(enabled_providers(list, &enabled, &error)) << error;
  std::vector<std::string> out;
  for (const Provider* p : enabled) out.push_back(p->name);
  return out;
}

TEST(TransportProvidersTest, SelfComesFirstAndTheListKeepsPreferenceOrder) {
  EXPECT_EQ(names("shm,tcp"), (std::vector<std::string>{"self", "shm", "tcp"}));
  EXPECT_EQ(names("tcp,shm"), (std::vector<std::string>{"self", "shm", "tcp"}))
      << "the setting enables providers; it does not reorder them";
  EXPECT_EQ(names("tcp"), (std::vector<std::string>{"self", "tcp"}));
  EXPECT_EQ(names("shm"), (std::vector<std::string>{"self", "shm"}));
  EXPECT_EQ(names("tcp,verbs,shm"), (std::vector<std::string>{"self", "shm", "verbs", "tcp"}))
      << "RDMA before sockets";
}

TEST(TransportProvidersTest, AnUnknownNameIsReportedWithTheChoices) {
  std::vector<const Provider*> enabled;
  std::string error;
  EXPECT_FALSE(enabled_providers("shm,tcpp", &enabled, &error));
  EXPECT_NE(error.find("\"tcpp\""), std::string::npos) << error;
  EXPECT_NE(error.find("expected shm, verbs, tcp"), std::string::npos) << error;
  EXPECT_FALSE(enabled_providers("self", &enabled, &error)) << "self is not chosen, it is always there";
  EXPECT_FALSE(enabled_providers("", &enabled, &error));
}

// shm maps peers on first contact, at any time until MPI_Finalize, so it has
// nothing to settle: start-up takes one fence.
TEST(TransportProvidersTest, NoProviderAsksForTheSettlingFence) {
  for (const Provider& p : all_providers()) EXPECT_FALSE(p.settles) << p.name;
}

TEST(TransportProvidersTest, ProvidersWithoutAPartHereOpenNothing) {
  JobLayout alone;
  alone.rank = 0;
  alone.size = 1;
  alone.local_peers = {0};
  alone.singleton = true;  // started without a launcher: nobody can reach it
  for (const Provider& p : all_providers()) {
    std::string error;
    auto t = p.open(alone, nullptr, &error);
    EXPECT_TRUE(error.empty()) << p.name << ": " << error;
    EXPECT_EQ(t != nullptr, std::string(p.name) == "self") << p.name << " in a singleton";
  }
}

// A one-process job that a launcher started may spawn or connect to other
// jobs (MPI-3.1 §10): TCP opens for it, shared memory (no peer here) does not.
TEST(TransportProvidersTest, AOneProcessJobUnderALauncherListensOnTcp) {
  JobLayout alone;
  alone.rank = 0;
  alone.size = 1;
  alone.local_peers = {0};
  alone.nspace = "test.one";
  alone.hostname = "localhost";
  for (const Provider& p : all_providers()) {
    std::string error;
    auto t = p.open(alone, nullptr, &error);
    EXPECT_TRUE(error.empty()) << p.name << ": " << error;
    bool expected = std::string(p.name) == "self" || std::string(p.name) == "tcp";
    EXPECT_EQ(t != nullptr, expected) << p.name << " in a job of one process under a launcher";
  }
}

}  // namespace
}  // namespace ferry::transport
