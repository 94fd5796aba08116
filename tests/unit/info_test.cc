// Info objects (MPI-3.1 §9) and MPI_INFO_ENV's contents (§8.8).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/handles.h"
#include "base/info.h"

namespace ferry {
namespace {

std::vector<std::string> keys_of(const Info& info) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < info.size(); ++i) keys.push_back(info.key(i));
  return keys;
}

TEST(Info, KeysKeepTheOrderTheyWereFirstSetIn) {
  Info info;
  info.set("zeta", "1");
  info.set("alpha", "2");
  info.set("mid", "3");
  info.set("alpha", "replaced");  // a new value keeps the key's place
  EXPECT_EQ(keys_of(info), (std::vector<std::string>{"zeta", "alpha", "mid"}));
  ASSERT_NE(info.get("alpha"), nullptr);
  EXPECT_EQ(*info.get("alpha"), "replaced");
  EXPECT_TRUE(info.remove("zeta"));
  EXPECT_EQ(keys_of(info), (std::vector<std::string>{"alpha", "mid"}));
  info.set("zeta", "back");  // set again after a delete: at the end
  EXPECT_EQ(keys_of(info), (std::vector<std::string>{"alpha", "mid", "zeta"}));
}

TEST(Info, MissingKeysAreReported) {
  Info info;
  info.set("a", "1");
  EXPECT_EQ(info.get("b"), nullptr);
  EXPECT_EQ(info.get("A"), nullptr);  // keys are compared exactly
  EXPECT_FALSE(info.remove("b"));
  EXPECT_TRUE(info.remove("a"));
  EXPECT_FALSE(info.remove("a"));
  EXPECT_EQ(info.size(), 0u);
}

TEST(Info, EmptyValuesAreValues) {
  Info info;
  info.set("k", "");
  ASSERT_NE(info.get("k"), nullptr);
  EXPECT_EQ(*info.get("k"), "");
  EXPECT_TRUE(check_info_value("").ok());
}

TEST(Info, KeyLengthLimits) {
  std::string longest(MPI_MAX_INFO_KEY, 'k');
  EXPECT_TRUE(check_info_key(longest.c_str()).ok());
  std::string too_long(MPI_MAX_INFO_KEY + 1, 'k');
  Err e = check_info_key(too_long.c_str());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_INFO_KEY);
  EXPECT_NE(e.message().find("256 characters, more than MPI_MAX_INFO_KEY (255)"), std::string::npos)
      << e.message();
  EXPECT_EQ(check_info_key("").mpi_class(), MPI_ERR_INFO_KEY);
  EXPECT_EQ(check_info_key(nullptr).mpi_class(), MPI_ERR_INFO_KEY);
  EXPECT_TRUE(check_info_key("x").ok());
}

TEST(Info, ValueLengthLimits) {
  std::string longest(MPI_MAX_INFO_VAL, 'v');
  EXPECT_TRUE(check_info_value(longest.c_str()).ok());
  std::string too_long(MPI_MAX_INFO_VAL + 1, 'v');
  Err e = check_info_value(too_long.c_str());
  EXPECT_EQ(e.mpi_class(), MPI_ERR_INFO_VALUE);
  EXPECT_NE(e.message().find("1025 characters, more than MPI_MAX_INFO_VAL (1024)"), std::string::npos)
      << e.message();
  EXPECT_EQ(check_info_value(nullptr).mpi_class(), MPI_ERR_INFO_VALUE);
}

TEST(Info, CreatedObjectsAreFoundUntilFreed) {
  size_t before = infos::live();
  Info contents;
  contents.set("hint", "on");
  MPI_Info h = infos::create(contents);
  EXPECT_TRUE(handle::is_dynamic(h, handle::Object::kInfo));
  EXPECT_EQ(infos::live(), before + 1);
  const Info* found = find_info(h);
  ASSERT_NE(found, nullptr);
  ASSERT_NE(found->get("hint"), nullptr);
  EXPECT_EQ(*found->get("hint"), "on");
  EXPECT_EQ(infos::find_mutable(h), found);
  infos::find_mutable(h)->set("more", "yes");
  EXPECT_EQ(find_info(h)->size(), 2u);
  EXPECT_EQ(contents.size(), 1u);  // the object holds its own copy

  ASSERT_TRUE(infos::free(h).ok());
  EXPECT_EQ(find_info(h), nullptr);
  EXPECT_EQ(infos::live(), before);
  Err again = infos::free(h);
  EXPECT_EQ(again.mpi_class(), MPI_ERR_INFO);
  EXPECT_NE(again.message().find("invalid info handle"), std::string::npos) << again.message();
}

TEST(Info, NullAndForeignHandlesAreNotInfos) {
  EXPECT_EQ(find_info(MPI_INFO_NULL), nullptr);
  EXPECT_EQ(find_info(MPI_COMM_WORLD), nullptr);
  EXPECT_EQ(find_info(handle::make_dynamic(handle::Object::kOp, 0)), nullptr);
  EXPECT_EQ(find_info(handle::make_dynamic(handle::Object::kInfo, 99999)), nullptr);
  Err e = infos::free(MPI_INFO_NULL);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_INFO);
  EXPECT_EQ(e.message(), "info is MPI_INFO_NULL");
}

TEST(Info, InfoEnvIsPredefinedAndReadOnly) {
  const Info* env = find_info(MPI_INFO_ENV);
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(infos::find_mutable(MPI_INFO_ENV), nullptr);
  Err e = infos::free(MPI_INFO_ENV);
  EXPECT_EQ(e.mpi_class(), MPI_ERR_INFO);
  EXPECT_EQ(e.message(), "MPI_INFO_ENV is predefined and cannot be freed");
  EXPECT_EQ(find_info(MPI_INFO_ENV), env);
  // What every process knows about itself (the test runs without MPI_Init).
  ASSERT_NE(env->get("command"), nullptr);
  EXPECT_NE(env->get("command")->find("info_test"), std::string::npos) << *env->get("command");
  ASSERT_NE(env->get("maxprocs"), nullptr);
  EXPECT_EQ(*env->get("maxprocs"), "1");
  EXPECT_NE(env->get("host"), nullptr);
  EXPECT_NE(env->get("arch"), nullptr);
  EXPECT_NE(env->get("wdir"), nullptr);
  ASSERT_NE(env->get("thread_level"), nullptr);
  EXPECT_EQ(*env->get("thread_level"), "MPI_THREAD_SINGLE");
}

TEST(Info, EnvironmentFollowsTheStandardsKeys) {
  infos::Environment e;
  e.command_line = {"/bin/app", "-n", "3", "input file"};
  e.world_size = 16;
  e.host = "node7";
  e.arch = "x86_64";
  e.working_directory = "/scratch/run";
  e.thread_level = MPI_THREAD_MULTIPLE;
  Info info = infos::environment_info(e);
  EXPECT_EQ(keys_of(info),
            (std::vector<std::string>{"command", "argv", "maxprocs", "host", "arch", "wdir", "thread_level"}));
  EXPECT_EQ(*info.get("command"), "/bin/app");
  EXPECT_EQ(*info.get("argv"), "-n 3 input file");
  EXPECT_EQ(*info.get("maxprocs"), "16");
  EXPECT_EQ(*info.get("host"), "node7");
  EXPECT_EQ(*info.get("arch"), "x86_64");
  EXPECT_EQ(*info.get("wdir"), "/scratch/run");
  EXPECT_EQ(*info.get("thread_level"), "MPI_THREAD_MULTIPLE");
}

TEST(Info, EnvironmentLeavesOutWhatIsUnknownAndTruncatesLongValues) {
  infos::Environment e;
  e.command_line = {"./a.out", std::string(5000, 'x')};
  e.thread_level = MPI_THREAD_FUNNELED;
  Info info = infos::environment_info(e);
  EXPECT_EQ(info.get("host"), nullptr);
  EXPECT_EQ(info.get("wdir"), nullptr);
  ASSERT_NE(info.get("argv"), nullptr);
  EXPECT_EQ(info.get("argv")->size(), static_cast<size_t>(MPI_MAX_INFO_VAL));
  EXPECT_EQ(*info.get("thread_level"), "MPI_THREAD_FUNNELED");
  infos::Environment no_args;
  no_args.command_line = {"./a.out"};
  EXPECT_EQ(infos::environment_info(no_args).get("argv"), nullptr);
}

TEST(Info, HandleSlotsAreReused) {
  MPI_Info a = infos::create();
  ASSERT_TRUE(infos::free(a).ok());
  MPI_Info b = infos::create();
  EXPECT_EQ(a, b);
  EXPECT_EQ(find_info(b)->size(), 0u);
  EXPECT_TRUE(infos::free(b).ok());
}

}  // namespace
}  // namespace ferry
