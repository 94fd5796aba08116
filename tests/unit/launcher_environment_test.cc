// What a rank's environment holds: mpirun's, less an enclosing job's
// variables, plus -x/-genv and the rank variables.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "launcher/ranks/rank_environment.h"
#include "launcher/ranks/training_environment.h"

namespace ferry::launcher {
namespace {

TEST(LauncherEnvironment, DropsAnEnclosingJobsVariables) {
  char* parent[] = {const_cast<char*>("HOME=/root"), const_cast<char*>("PMIX_RANK=7"),
                    const_cast<char*>("PMIX_SERVER_URI4=x"), const_cast<char*>("PMIX_MCA_gds=hash"),
                    const_cast<char*>("PMI_FD=3"), const_cast<char*>("OMPI_COMM_WORLD_RANK=7"),
                    const_cast<char*>("OMPI_MCA_x=1"), nullptr};
  Environment env = base_environment(parent, {});
  EXPECT_EQ(env.get("HOME"), "/root");
  EXPECT_EQ(env.get("PMIX_MCA_gds"), "hash");  // the user's PMIx tuning stays
  EXPECT_EQ(env.get("OMPI_MCA_x"), "1");
  EXPECT_FALSE(env.get("PMIX_RANK"));
  EXPECT_FALSE(env.get("PMIX_SERVER_URI4"));
  EXPECT_FALSE(env.get("PMI_FD"));
  EXPECT_FALSE(env.get("OMPI_COMM_WORLD_RANK"));
}

TEST(LauncherEnvironment, ExtraVariablesApplyInOrder) {
  char* parent[] = {const_cast<char*>("A=parent"), nullptr};
  Environment env = base_environment(parent, {{"A", "x"}, {"B", "with = sign"}, {"A", "last"}});
  EXPECT_EQ(env.get("A"), "last");
  EXPECT_EQ(env.get("B"), "with = sign");
  int count = 0;
  for (char* const* e = env.envp(); *e != nullptr; ++e) ++count;
  EXPECT_EQ(count, 2);
}

TEST(LauncherEnvironment, RankVariables) {
  Environment env;
  // Rank 5 of 8, the second of the three ranks on its host.
  add_rank_variables(env, {5, 8, 1, 3});
  EXPECT_EQ(env.get("OMPI_COMM_WORLD_RANK"), "5");
  EXPECT_EQ(env.get("OMPI_COMM_WORLD_SIZE"), "8");
  EXPECT_EQ(env.get("OMPI_COMM_WORLD_LOCAL_RANK"), "1");
  EXPECT_EQ(env.get("OMPI_COMM_WORLD_LOCAL_SIZE"), "3");
  EXPECT_EQ(env.get("OMPI_COMM_WORLD_NODE_RANK"), "1");
  EXPECT_EQ(env.get("PMI_RANK"), "5");
  EXPECT_EQ(env.get("PMI_SIZE"), "8");
}

TEST(TrainingEnvironment, TorchrunsVariablesForOneRank) {
  Environment env;
  TrainingJob job{true, "10.0.0.7", 29511, 1, 3, "ferry.77", 2};
  // Rank 5 of 8, the second of three ranks on the second host.
  add_training_variables(env, {5, 8, 1, 3}, {1}, job);
  EXPECT_EQ(env.get("RANK"), "5");
  EXPECT_EQ(env.get("LOCAL_RANK"), "1");
  EXPECT_EQ(env.get("WORLD_SIZE"), "8");
  EXPECT_EQ(env.get("LOCAL_WORLD_SIZE"), "3");
  EXPECT_EQ(env.get("GROUP_RANK"), "1");
  EXPECT_EQ(env.get("GROUP_WORLD_SIZE"), "2");
  EXPECT_EQ(env.get("ROLE_RANK"), "5");
  EXPECT_EQ(env.get("ROLE_WORLD_SIZE"), "8");
  EXPECT_EQ(env.get("ROLE_NAME"), "default");
  EXPECT_EQ(env.get("MASTER_ADDR"), "10.0.0.7");
  EXPECT_EQ(env.get("MASTER_PORT"), "29511");
  EXPECT_EQ(env.get("TORCHELASTIC_RESTART_COUNT"), "1");
  EXPECT_EQ(env.get("TORCHELASTIC_MAX_RESTARTS"), "3");
  EXPECT_EQ(env.get("TORCHELASTIC_RUN_ID"), "ferry.77");
}

TEST(TrainingEnvironment, TheUsersValuesWin) {
  char* parent[] = {const_cast<char*>("MASTER_PORT=1234"), nullptr};
  Environment env = base_environment(parent, {{"RANK", "9"}});
  add_training_variables(env, {0, 2, 0, 2}, {0}, {true, "127.0.0.1", 5555, 0, 0, "ferry.1", 1});
  EXPECT_EQ(env.get("RANK"), "9");
  EXPECT_EQ(env.get("MASTER_PORT"), "1234");
  EXPECT_EQ(env.get("WORLD_SIZE"), "2");
}

TEST(TrainingEnvironment, OffMeansNone) {
  Environment env;
  add_training_variables(env, {0, 2, 0, 2}, {0}, TrainingJob{});
  EXPECT_FALSE(env.get("RANK"));
  EXPECT_FALSE(env.get("MASTER_ADDR"));
}

TEST(TrainingEnvironment, UndeterminedRendezvousIsLeftUnset) {
  Environment env;
  add_training_variables(env, {0, 1, 0, 1}, {0}, {true, "", 0, 0, 0, "ferry.1", 1});
  EXPECT_EQ(env.get("RANK"), "0");
  EXPECT_FALSE(env.get("MASTER_ADDR"));
  EXPECT_FALSE(env.get("MASTER_PORT"));
}

TEST(TrainingEnvironment, MasterAddressOnOneHostIsLoopback) {
  std::string error;
  EXPECT_EQ(choose_master_addr("", "", &error), "127.0.0.1");
  EXPECT_EQ(choose_master_addr("127.0.0.5", "", &error), "127.0.0.5");  // rank 0 on a named host
  EXPECT_EQ(choose_master_addr("", "127.0.0.9", &error), "127.0.0.1");  // the route's source here
  EXPECT_EQ(choose_master_addr("no-such-host.invalid", "", &error), "");
  EXPECT_NE(error.find("no-such-host.invalid"), std::string::npos) << error;
}

TEST(TrainingEnvironment, AHeldPortIsRefusedToOthers) {
  std::string error;
  int port = pick_free_port(&error);
  ASSERT_GT(port, 0) << error;
  int held = hold_port(port, &error);
  ASSERT_GE(held, 0) << error;
  EXPECT_EQ(hold_port(port, &error), -1);
  EXPECT_NE(error.find("in use"), std::string::npos) << error;
  ::close(held);
  int again = hold_port(port, &error);  // free once released
  EXPECT_GE(again, 0) << error;
  if (again >= 0) ::close(again);
}

// MASTER_PORT below the ephemeral range, where no outgoing connection on rank 0's host can hold it
// (a CI run failed once when ferryd's own connection back took the port mpirun had picked).
TEST(TrainingEnvironment, PickedPortsAreBelowTheEphemeralRange) {
  int low = 32768, high = 60999;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low >> high;
  for (int i = 0; i < 20; ++i) {
    std::string error;
    int port = pick_free_port(&error);
    ASSERT_GT(port, 0) << error;
    EXPECT_GE(port, 20000);
    EXPECT_LT(port, low);
  }
}

TEST(TrainingEnvironment, NamesAreTorchruns) {
  EXPECT_TRUE(is_training_variable("MASTER_ADDR"));
  EXPECT_TRUE(is_training_variable("TORCHELASTIC_RESTART_COUNT"));
  EXPECT_FALSE(is_training_variable("OMPI_COMM_WORLD_RANK"));
  EXPECT_FALSE(is_training_variable("RANKS"));
}

TEST(LauncherEnvironment, CopiesAreIndependent) {
  Environment a;
  a.set("X", "1");
  Environment b(a);
  b.set("X", "2");
  EXPECT_EQ(a.get("X"), "1");
  EXPECT_EQ(b.get("X"), "2");
}

}  // namespace
}  // namespace ferry::launcher
