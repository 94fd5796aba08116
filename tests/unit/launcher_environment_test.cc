// What a rank's environment holds: mpirun's, less an enclosing job's
// variables, plus -x/-genv and the rank variables.
#include <gtest/gtest.h>

#include "launcher/rank_environment.h"

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
