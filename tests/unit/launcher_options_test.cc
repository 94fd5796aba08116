// mpirun's command line: the single-dash spellings of Open MPI and Hydra,
// the options, and the one-line refusals of bad arguments.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "launcher/options.h"

namespace ferry::launcher {
namespace {

using Args = std::vector<std::string>;

std::map<std::string, std::string> g_env = {{"PATH", "/usr/bin:/bin"}, {"FOO", "from-mpirun"}};

std::optional<std::string> lookup(const char* name) {
  auto it = g_env.find(name);
  if (it == g_env.end()) return std::nullopt;
  return it->second;
}

ParseOutcome parse(const Args& args) { return parse_options(args, lookup); }

Options parse_ok(const Args& args) {
  ParseOutcome out = parse(args);
  EXPECT_EQ(out.kind, ParseOutcome::Kind::kRun) << out.error;
  return out.options;
}

std::string parse_error(const Args& args) {
  ParseOutcome out = parse(args);
  EXPECT_EQ(out.kind, ParseOutcome::Kind::kError);
  EXPECT_EQ(out.error.rfind("mpirun: ", 0), 0u) << out.error;
  EXPECT_EQ(out.error.find('\n'), std::string::npos) << "one line: " << out.error;
  return out.error;
}

TEST(LauncherNormalize, RewritesSingleDashSpellingsOfMpirunOnly) {
  EXPECT_EQ(normalize_arguments(Args{"-np", "4", "prog", "-np", "3"}),
            (Args{"--np", "4", "prog", "-np", "3"}));
  EXPECT_EQ(normalize_arguments(Args{"-genv", "A", "1", "-env", "B", "2", "-wdir", "/tmp", "-ppn", "2", "prog"}),
            (Args{"--genv", "A", "1", "--env", "B", "2", "--wdir", "/tmp", "--ppn", "2", "prog"}));
  EXPECT_EQ(normalize_arguments(Args{"-oversubscribe", "-tag-output", "-allow-run-as-root", "-wd", "/", "p"}),
            (Args{"--oversubscribe", "--tag-output", "--allow-run-as-root", "--wdir", "/", "p"}));
}

TEST(LauncherNormalize, SkipsOptionValuesToFindTheProgram) {
  // "-genv" takes two values: "-np" here is a value, and "prog" the program.
  EXPECT_EQ(normalize_arguments(Args{"-genv", "-np", "x", "prog", "-genv"}),
            (Args{"--genv", "-np", "x", "prog", "-genv"}));
  // "-x VAR" takes one; attached values take none.
  EXPECT_EQ(normalize_arguments(Args{"-x", "A=1", "-n4", "--np=2", "prog", "-wdir"}),
            (Args{"-x", "A=1", "-n4", "--np=2", "prog", "-wdir"}));
}

TEST(LauncherNormalize, StopsAtDoubleDash) {
  EXPECT_EQ(normalize_arguments(Args{"-n", "2", "--", "-np", "3"}), (Args{"-n", "2", "--", "-np", "3"}));
}

TEST(LauncherOptions, RankCountSpellings) {
  EXPECT_EQ(parse_ok({"sh"}).num_ranks, 1);  // Hydra's default
  for (const Args& args : {Args{"-n", "4", "sh"}, Args{"-np", "4", "sh"}, Args{"-c", "4", "sh"},
                           Args{"--np", "4", "sh"}, Args{"--np=4", "sh"}, Args{"-n4", "sh"}})
    EXPECT_EQ(parse_ok(args).num_ranks, 4) << args[0];
}

TEST(LauncherOptions, TheLastOfARepeatedOptionCounts) {
  EXPECT_EQ(parse_ok({"-n", "2", "-np", "3", "sh"}).num_ranks, 3);
  EXPECT_EQ(parse_ok({"--wdir", "/", "-wdir", "/bin", "sh"}).working_dir, "/bin");
}

TEST(LauncherOptions, ProgramAndItsArgumentsAreLeftAlone) {
  Options o = parse_ok({"-n", "2", "sh", "-n", "5", "--tag-output", "-x", "A"});
  EXPECT_EQ(o.program, "sh");
  EXPECT_TRUE(o.program_path == "/usr/bin/sh" || o.program_path == "/bin/sh") << o.program_path;
  EXPECT_EQ(o.program_args, (Args{"sh", "-n", "5", "--tag-output", "-x", "A"}));
  EXPECT_FALSE(o.tag_output);
  EXPECT_TRUE(o.environment.empty());
  EXPECT_EQ(parse_ok({"-n", "2", "--", "sh", "-c", "true"}).program_args, (Args{"sh", "-c", "true"}));
}

TEST(LauncherOptions, EnvironmentFromXAndGenv) {
  Options o = parse_ok({"-x", "A=1", "-x", "FOO", "-x", "UNSET_HERE", "-x", "EQ=a=b", "-genv", "B", "two words",
                        "-env", "C", "3", "--genv", "A", "4", "sh"});
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(o.environment, (std::vector<Pair>{{"A", "1"}, {"FOO", "from-mpirun"}, {"EQ", "a=b"},
                                              {"B", "two words"}, {"A", "4"}, {"C", "3"}}));
}

TEST(LauncherOptions, Flags) {
  Options o = parse_ok({"--oversubscribe", "--allow-run-as-root", "--tag-output", "-n", "2", "sh"});
  EXPECT_TRUE(o.oversubscribe);
  EXPECT_TRUE(o.allow_run_as_root);
  EXPECT_TRUE(o.tag_output);
  EXPECT_TRUE(parse_ok({"-tag-output", "sh"}).tag_output);
  EXPECT_EQ(parse_ok({"-ppn", "8", "-n", "2", "sh"}).num_ranks, 2);  // ppn: checked, not used
}

TEST(LauncherOptions, WorkingDirectoryIsAbsoluteAndFindsRelativePrograms) {
  Options o = parse_ok({"--wdir", "/bin", "./sh"});
  EXPECT_EQ(o.working_dir, "/bin");
  EXPECT_EQ(o.program_path, "/bin/./sh");
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(chdir("/"), 0);
  EXPECT_EQ(parse_ok({"-wdir", "usr", "sh"}).working_dir, "/usr");
  ASSERT_EQ(chdir(cwd), 0);
}

TEST(LauncherOptions, HelpAndVersion) {
  ParseOutcome help = parse({"--help"});
  EXPECT_EQ(help.kind, ParseOutcome::Kind::kPrintAndExit);
  for (const char* opt : {"-n", "--np", "--oversubscribe", "-x", "--genv", "--env", "--wdir", "--allow-run-as-root",
                          "--tag-output", "--version", "--help"})
    EXPECT_NE(help.text.find(opt), std::string::npos) << opt;
  EXPECT_EQ(parse({"-h"}).kind, ParseOutcome::Kind::kPrintAndExit);
  ParseOutcome version = parse({"--version"});
  EXPECT_EQ(version.kind, ParseOutcome::Kind::kPrintAndExit);
  EXPECT_EQ(version.text.rfind("mpirun (Ferry) ", 0), 0u) << version.text;
}

TEST(LauncherOptions, BadRankCounts) {
  EXPECT_NE(parse_error({"-n", "0", "sh"}).find("positive"), std::string::npos);
  EXPECT_NE(parse_error({"-n", "-3", "sh"}).find("'-3'"), std::string::npos);
  EXPECT_NE(parse_error({"-np", "abc", "sh"}).find("'abc'"), std::string::npos);
  EXPECT_NE(parse_error({"-n", "2x", "sh"}).find("'2x'"), std::string::npos);
  EXPECT_NE(parse_error({"-n", "65536", "sh"}).find("at most 65535"), std::string::npos);
  EXPECT_NE(parse_error({"-n", "99999999999", "sh"}).find("'99999999999'"), std::string::npos);
  EXPECT_NE(parse_error({"-np"}).find("option -np needs a value"), std::string::npos);
  parse_error({"-ppn", "0", "sh"});
}

TEST(LauncherOptions, BadProgram) {
  EXPECT_NE(parse_error({}).find("no program"), std::string::npos);
  EXPECT_NE(parse_error({"-n", "2"}).find("no program"), std::string::npos);
  EXPECT_NE(parse_error({"no-such-program-xyz"}).find("'no-such-program-xyz' not found in PATH"),
            std::string::npos);
  EXPECT_NE(parse_error({"./no/such/file"}).find("does not exist"), std::string::npos);
  EXPECT_NE(parse_error({"/tmp"}).find("is a directory"), std::string::npos);

  std::string file = ::testing::TempDir() + "launcher_options_not_executable";
  std::ofstream(file) << "#!/bin/sh\n";
  ::chmod(file.c_str(), 0644);
  // Even root needs one x bit to execute a file.
  EXPECT_NE(parse_error({file}).find("not executable"), std::string::npos);
  std::remove(file.c_str());
}

TEST(LauncherOptions, BadOptions) {
  EXPECT_NE(parse_error({"--no-such-option", "sh"}).find("--no-such-option"), std::string::npos);
  EXPECT_NE(parse_error({"-genv", "A"}).find("option -genv needs 2 values"), std::string::npos);
  EXPECT_NE(parse_error({"-x"}).find("option -x needs a value"), std::string::npos);
  parse_error({"-x", "=value", "sh"});      // no name
  parse_error({"-genv", "A=B", "1", "sh"});  // '=' in a name
  EXPECT_NE(parse_error({"--wdir", "/no/such/dir", "sh"}).find("does not exist"), std::string::npos);
  EXPECT_NE(parse_error({"--wdir", "/bin/sh", "sh"}).find("not a directory"), std::string::npos);
}

TEST(LauncherResolveProgram, SearchesPathLikeExecvp) {
  EXPECT_EQ(resolve_program("sh", std::string("/no/such:/bin")).path, "/bin/sh");
  EXPECT_EQ(resolve_program("sh", std::nullopt).path, "/bin/sh");  // execvp's default path
  EXPECT_EQ(resolve_program("/bin/sh", std::string("")).path, "/bin/sh");
  EXPECT_FALSE(resolve_program("sh", std::string("/no/such")).error.empty());
  // An empty PATH entry is the current directory.
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(chdir("/bin"), 0);
  EXPECT_EQ(resolve_program("sh", std::string("/no/such:")).path, "sh");
  ASSERT_EQ(chdir(cwd), 0);
}

}  // namespace
}  // namespace ferry::launcher
