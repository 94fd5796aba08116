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

TEST(LauncherNormalize, RewritesHostAndPlacementSpellings) {
  EXPECT_EQ(normalize_arguments(Args{"-hostfile", "h", "-machinefile", "m", "-host", "a", "-hosts", "b", "prog"}),
            (Args{"--hostfile", "h", "--machinefile", "m", "--host", "a", "--hosts", "b", "prog"}));
  EXPECT_EQ(normalize_arguments(Args{"-npernode", "2", "-map-by", "node", "-bind-to", "core", "-report-bindings",
                                     "-launch-agent", "ssh", "-launcher-exec", "rsh", "prog"}),
            (Args{"--npernode", "2", "--map-by", "node", "--bind-to", "core", "--report-bindings", "--launch-agent",
                  "ssh", "--launcher-exec", "rsh", "prog"}));
  // -f and -H are single letters, left to CLI11; their values are skipped.
  EXPECT_EQ(normalize_arguments(Args{"-f", "-np", "-H", "-host", "prog", "-host"}),
            (Args{"-f", "-np", "-H", "-host", "prog", "-host"}));
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
  EXPECT_TRUE(o.torch_env);  // torchrun's variables are on by default
  EXPECT_FALSE(parse_ok({"--no-torch-env", "sh"}).torch_env);
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
                          "--tag-output", "--version", "--help", "--hostfile", "--machinefile", "-f", "-H", "--host",
                          "--ppn", "--npernode", "--map-by", "--bind-to", "--report-bindings", "--launch-agent",
                          "--accept-new-host-keys", "SLURM_JOB_NODELIST", "libssh", "same path"})
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

// A hostfile in the test's temporary directory, removed at the end.
class TempHostfile {
 public:
  TempHostfile(const std::string& name, const std::string& text)
      : path_(::testing::TempDir() + "launcher_options_" + name) {
    std::ofstream(path_) << text;
  }
  ~TempHostfile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(LauncherHosts, NoHostsIsThisHostAlone) {
  Options o = parse_ok({"-n", "3", "sh"});
  EXPECT_TRUE(o.hosts.empty());
  EXPECT_TRUE(o.num_ranks_given);
  ASSERT_EQ(o.placement.nodes.size(), 1u);
  EXPECT_TRUE(o.placement.nodes[0].local);
  EXPECT_EQ(o.placement.nodes[0].ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_FALSE(parse_ok({"sh"}).num_ranks_given);
  EXPECT_EQ(parse_ok({"sh"}).placement.node_of_rank.size(), 1u);
}

TEST(LauncherHosts, HostfileSpellingsAndRanksPerSlot) {
  TempHostfile file("hosts", "# test\nlocalhost slots=2\n127.0.0.2:3\n");
  for (const char* spelling : {"--hostfile", "-hostfile", "--machinefile", "-machinefile", "-f"}) {
    Options o = parse_ok({spelling, file.path(), "sh"});
    ASSERT_EQ(o.hosts.size(), 2u) << spelling;
    EXPECT_EQ(o.hosts[0].name, "localhost");
    EXPECT_EQ(o.hosts[1].slots, 3);
    EXPECT_EQ(o.num_ranks, 5) << spelling;  // one per slot without -n
    EXPECT_FALSE(o.num_ranks_given);
    ASSERT_EQ(o.placement.nodes.size(), 2u);
    EXPECT_TRUE(o.placement.nodes[0].local);
    EXPECT_TRUE(o.placement.nodes[1].local);  // 127.x is this host
    EXPECT_EQ(o.placement.nodes[1].ranks, (std::vector<int>{2, 3, 4}));
  }
  Options o = parse_ok({"-f", file.path(), "-n", "3", "sh"});
  EXPECT_EQ(o.num_ranks, 3);
  EXPECT_EQ(o.placement.node_of_rank, (std::vector<int>{0, 0, 1}));
}

TEST(LauncherHosts, HostOptionSpellingsRepeatAndMerge) {
  for (const char* spelling : {"-H", "--host", "-host", "--hosts", "-hosts"}) {
    Options o = parse_ok({spelling, "localhost:2,192.0.2.1", spelling, "localhost", "sh"});
    ASSERT_EQ(o.hosts.size(), 2u) << spelling;
    EXPECT_EQ(o.hosts[0].slots, 3) << spelling;
    EXPECT_EQ(o.hosts[1].name, "192.0.2.1");
    EXPECT_EQ(o.num_ranks, 4);
    ASSERT_EQ(o.placement.nodes.size(), 2u);
    EXPECT_TRUE(o.placement.nodes[0].local);
    EXPECT_FALSE(o.placement.nodes[1].local);
  }
}

TEST(LauncherHosts, HostOptionPicksHostsFromTheHostfile) {
  TempHostfile file("pick", "a slots=2\nb slots=4 max_slots=5\nc slots=1\n");
  Options o = parse_ok({"-f", file.path(), "-H", "c,b:3", "sh"});
  ASSERT_EQ(o.hosts.size(), 2u);
  EXPECT_EQ(o.hosts[0].name, "b");  // the hostfile's order
  EXPECT_EQ(o.hosts[0].slots, 3);   // -H's count wins
  EXPECT_EQ(o.hosts[0].max_slots, 5);
  EXPECT_EQ(o.hosts[1].name, "c");
  EXPECT_EQ(o.hosts[1].slots, 1);
  EXPECT_EQ(o.num_ranks, 4);
  EXPECT_EQ(parse_error({"-f", file.path(), "-H", "a,z", "sh"}),
            "mpirun: -H names 'z', which is not in the hostfile (" + file.path() +
                "); with a hostfile, -H picks hosts from it");
  EXPECT_EQ(parse_error({"-f", file.path(), "-H", "b:6", "sh"}),
            "mpirun: -H b:6 is above its max_slots=5 (" + file.path() + ":2)");
}

TEST(LauncherHosts, SlurmAllocationWhenNoHostsAreGiven) {
  g_env["SLURM_JOB_NODELIST"] = "localhost,n[1-2]";
  g_env["SLURM_TASKS_PER_NODE"] = "2,1(x2)";
  Options o = parse_ok({"sh"});
  ASSERT_EQ(o.hosts.size(), 3u);
  EXPECT_EQ(o.hosts[2].name, "n2");
  EXPECT_EQ(o.num_ranks, 4);
  EXPECT_EQ(o.placement.node_of_rank, (std::vector<int>{0, 0, 1, 2}));
  EXPECT_EQ(parse_error({"-n", "5", "sh"}),
            "mpirun: 5 ranks requested but the hosts have only 4 slots (SLURM_JOB_NODELIST); add slots or use "
            "--oversubscribe");
  // Hosts given explicitly win over the allocation.
  EXPECT_EQ(parse_ok({"-H", "localhost", "sh"}).hosts.size(), 1u);
  g_env["SLURM_JOB_NODELIST"] = "n[1-";
  EXPECT_EQ(parse_error({"sh"}), "mpirun: SLURM_JOB_NODELIST 'n[1-': 'n[1-' lacks a closing ']'");
  g_env.erase("SLURM_JOB_NODELIST");
  g_env.erase("SLURM_TASKS_PER_NODE");
}

TEST(LauncherHosts, TooFewSlotsAndOversubscribe) {
  TempHostfile file("few", "localhost slots=2\n127.0.0.2\n");
  EXPECT_EQ(parse_error({"-f", file.path(), "-n", "4", "sh"}),
            "mpirun: 4 ranks requested but the hosts have only 3 slots (" + file.path() +
                ":1-2); add slots or use --oversubscribe");
  Options o = parse_ok({"-f", file.path(), "-n", "4", "--oversubscribe", "sh"});
  EXPECT_TRUE(o.placement.oversubscribed);
  EXPECT_EQ(o.placement.node_of_rank, (std::vector<int>{0, 0, 1, 0}));
  // Open MPI's modifier says the same.
  EXPECT_TRUE(parse_ok({"-f", file.path(), "-n", "4", "--map-by", "slot:OVERSUBSCRIBE", "sh"}).oversubscribe);
}

TEST(LauncherHosts, HostListErrorsAreOneLine) {
  TempHostfile file("bad", "a\nb slots=x\n");
  EXPECT_EQ(parse_error({"-f", file.path(), "sh"}),
            "mpirun: " + file.path() + ":2: 'x' is not a number of slots (1 to 1048576)");
  EXPECT_EQ(parse_error({"-f", "/no/such/hostfile", "sh"}),
            "mpirun: cannot read hostfile '/no/such/hostfile': No such file or directory");
  EXPECT_EQ(parse_error({"-H", "a,,b", "sh"}), "mpirun: -H 'a,,b' has an empty host name");
  EXPECT_EQ(parse_error({"-f"}), "mpirun: option -f needs a value (mpirun --help lists the options)");
}

TEST(LauncherPlacementOptions, RanksPerNodeSpellings) {
  for (const char* spelling : {"--ppn", "-ppn", "--npernode", "-npernode", "-N"}) {
    Options o = parse_ok({"-H", "localhost,127.0.0.2", spelling, "2", "sh"});
    EXPECT_EQ(o.ranks_per_node, 2) << spelling;
    EXPECT_EQ(o.placement.node_of_rank, (std::vector<int>{0, 0, 1, 1})) << spelling;
  }
  Options o = parse_ok({"-H", "localhost,127.0.0.2", "--map-by", "ppr:3:node", "sh"});
  EXPECT_EQ(o.ranks_per_node, 3);
  EXPECT_EQ(o.num_ranks, 6);
  EXPECT_EQ(parse_ok({"-ppn", "3", "sh"}).num_ranks, 3);  // this host: N ranks
  EXPECT_EQ(parse_error({"--map-by", "ppr:2:node", "--ppn", "3", "sh"}),
            "mpirun: --map-by ppr:2:node and --ppn 3 disagree");
}

TEST(LauncherPlacementOptions, MapBy) {
  struct Case {
    const char* text;
    MapBy expected;
  };
  for (Case c : {Case{"slot", MapBy::kSlot}, Case{"node", MapBy::kNode}, Case{"core", MapBy::kCore},
                 Case{"socket", MapBy::kSocket}, Case{"package", MapBy::kSocket}, Case{"numa", MapBy::kNuma},
                 Case{"NODE", MapBy::kNode}, Case{"node:nooversubscribe", MapBy::kNode}})
    EXPECT_EQ(parse_ok({"--map-by", c.text, "sh"}).map_by, c.expected) << c.text;
  EXPECT_EQ(parse_ok({"-map-by", "node", "sh"}).map_by, MapBy::kNode);
  EXPECT_EQ(parse_ok({"sh"}).map_by, MapBy::kSlot);
  Options o = parse_ok({"-H", "localhost:2,127.0.0.2:2", "--map-by", "node", "sh"});
  EXPECT_EQ(o.placement.node_of_rank, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(parse_error({"--map-by", "hwthread", "sh"}), "mpirun: --map-by hwthread is not supported (use core)");
  EXPECT_EQ(parse_error({"--map-by", "board", "sh"}),
            "mpirun: --map-by board: unknown policy 'board' (slot, node, core, socket, numa or ppr:N:node)");
  EXPECT_EQ(parse_error({"--map-by", "core:PE=2", "sh"}),
            "mpirun: --map-by core:PE=2: the modifier 'PE=2' is not supported (only oversubscribe, nooversubscribe)");
  EXPECT_EQ(parse_error({"--map-by", "ppr:2:socket", "sh"}),
            "mpirun: --map-by ppr:2:socket: only ppr:N:node is supported (ranks per socket are not)");
  EXPECT_EQ(parse_error({"--map-by", "ppr:x:node", "sh"}),
            "mpirun: --map-by ppr:x:node: expected ppr:N:node with N a positive number");
}

TEST(LauncherPlacementOptions, BindTo) {
  EXPECT_EQ(parse_ok({"sh"}).bind_to, BindTo::kDefault);
  struct Case {
    const char* text;
    BindTo expected;
  };
  for (Case c : {Case{"none", BindTo::kNone}, Case{"core", BindTo::kCore}, Case{"socket", BindTo::kSocket},
                 Case{"package", BindTo::kSocket}, Case{"numa", BindTo::kNuma}, Case{"Core", BindTo::kCore}})
    EXPECT_EQ(parse_ok({"-bind-to", c.text, "sh"}).bind_to, c.expected) << c.text;
  EXPECT_EQ(parse_error({"--bind-to", "hwthread", "sh"}), "mpirun: --bind-to hwthread is not supported (use core)");
  EXPECT_EQ(parse_error({"--bind-to", "core:overload-allowed", "sh"}),
            "mpirun: --bind-to core:overload-allowed: modifiers after ':' are not supported (none, core, socket, numa)");
  EXPECT_EQ(parse_error({"--bind-to", "l3cache", "sh"}),
            "mpirun: --bind-to l3cache: unknown object (none, core, socket or numa)");
}

TEST(LauncherPlacementOptions, RemoteStartOptions) {
  Options o = parse_ok({"--report-bindings", "--launch-agent", "ssh -x", "--accept-new-host-keys", "sh"});
  EXPECT_TRUE(o.report_bindings);
  EXPECT_EQ(o.launch_agent, "ssh -x");
  EXPECT_TRUE(o.accept_new_host_keys);
  Options d = parse_ok({"sh"});
  EXPECT_FALSE(d.report_bindings);
  EXPECT_EQ(d.launch_agent, "");
  EXPECT_FALSE(d.accept_new_host_keys);
  EXPECT_EQ(parse_ok({"-launch-agent", "rsh", "sh"}).launch_agent, "rsh");
  EXPECT_EQ(parse_ok({"-launcher-exec", "/usr/bin/ssh", "sh"}).launch_agent, "/usr/bin/ssh");
  EXPECT_EQ(parse_ok({"--launcher-exec", "a", "--launch-agent", "b", "sh"}).launch_agent, "b");
  EXPECT_TRUE(parse_ok({"-report-bindings", "sh"}).report_bindings);
  EXPECT_EQ(parse_error({"--launch-agent", " ", "sh"}), "mpirun: --launch-agent needs a command, not blanks");
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

TEST(LauncherFaultOptions, CheckpointAndRestartOptionsAndTheirSettingsForTheRanks) {
  char dir[] = "/tmp/ferry-fault-options-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string ckpt = std::string(dir) + "/a/b";
  Options o = parse_ok({"--checkpoint-dir", ckpt, "--checkpoint-interval", "1.5", "--checkpoint-keep", "3",
                        "--max-restarts", "2", "--restart-delay", "0.25", "--restart-from", "7", "-x", "A=1",
                        "/bin/true"});
  EXPECT_EQ(o.fault.checkpoint_dir, ckpt);
  struct stat st;
  EXPECT_EQ(stat(ckpt.c_str(), &st), 0) << "--checkpoint-dir is created";
  EXPECT_EQ(o.fault.checkpoint_interval_ms, 1500);
  EXPECT_EQ(o.fault.max_restarts, 2);
  EXPECT_EQ(o.fault.restart_delay_ms, 250);
  EXPECT_EQ(o.fault.restart_from, "7");
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(o.environment, (Env{{"A", "1"}, {"FERRY_CHECKPOINT_DIR", ckpt}, {"FERRY_CHECKPOINT_KEEP", "3"},
                                {"FERRY_RESTART_FROM", "7"}}));
  // Hydra's spellings are the same options.
  EXPECT_EQ(normalize_arguments(Args{"-ckpoint-prefix", "d", "-ckpoint-interval", "5", "-ckpoint-num", "2",
                                     "-ckpointlib", "app", "prog"}),
            (Args{"--checkpoint-dir", "d", "--checkpoint-interval", "5", "--restart-from", "2", "--ckpointlib",
                  "app", "prog"}));
  // Defaults: nothing for the ranks, no restarts.
  Options plain = parse_ok({"/bin/true"});
  EXPECT_EQ(plain.fault.max_restarts, 0);
  EXPECT_EQ(plain.fault.checkpoint_interval_ms, 0);
  EXPECT_TRUE(plain.environment.empty());
  std::string rm = std::string("rm -rf ") + dir;
  EXPECT_EQ(std::system(rm.c_str()), 0);
}

TEST(LauncherFaultOptions, BadValuesAreOneLineNamingTheOptionAndValue) {
  EXPECT_EQ(parse_error({"--max-restarts", "-1", "/bin/true"}),
            "mpirun: --max-restarts needs a number of restarts (0 or more), not '-1'");
  EXPECT_EQ(parse_error({"--restart-delay", "nan", "/bin/true"}),
            "mpirun: --restart-delay needs a number of seconds (0 or more), not 'nan'");
  EXPECT_EQ(parse_error({"--checkpoint-interval", "0.0", "/bin/true"}),
            "mpirun: --checkpoint-interval needs a positive number of seconds, not '0.0'");
  EXPECT_EQ(parse_error({"--checkpoint-interval", "99999999", "/bin/true"}),
            "mpirun: --checkpoint-interval 99999999 is more than 24 days");
  EXPECT_EQ(parse_error({"--restart-delay", "2073601", "/bin/true"}),
            "mpirun: --restart-delay 2073601 is more than 24 days");
  EXPECT_EQ(parse_error({"--timeout", "2073601", "/bin/true"}),
            "mpirun: --timeout 2073601 is more than 24 days, the longest time limit");
  parse_ok({"--timeout", "2073600", "--restart-delay", "2073600", "/bin/true"});
  EXPECT_EQ(parse_error({"--checkpoint-keep", "2x", "/bin/true"}),
            "mpirun: --checkpoint-keep needs a positive number of checkpoints, not '2x'");
  EXPECT_EQ(parse_error({"--restart-from", "last", "/bin/true"}),
            "mpirun: --restart-from needs an epoch number or 'latest', not 'last'");
  EXPECT_EQ(parse_error({"--ckpointlib", "dmtcp", "/bin/true"}),
            "mpirun: -ckpointlib needs app (blcr is not supported), not 'dmtcp'");
  std::string blcr = parse_error({"-ckpointlib", "blcr", "/bin/true"});
  EXPECT_NE(blcr.find("BLCR is not supported"), std::string::npos) << blcr;
  EXPECT_NE(blcr.find("MPIX_Checkpoint_hook"), std::string::npos) << blcr;
  EXPECT_EQ(parse_error({"--checkpoint-dir", "/proc/version/x", "/bin/true"}).rfind(
                "mpirun: cannot create --checkpoint-dir '/proc/version/x'", 0),
            0u);
}

TEST(LauncherFaultOptions, PartnerRedundancyGoesToTheRanksWithItsLocalDirectory) {
  Options o = parse_ok({"-H", "localhost,192.0.2.1", "--checkpoint-local-dir", "/scratch/ckpt-%h",
                        "--checkpoint-redundancy", "partner", "sh"});
  EXPECT_TRUE(o.fault.partner_redundancy);
  EXPECT_EQ(o.fault.checkpoint_local_dir, "/scratch/ckpt-%h");
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(o.environment,
            (Env{{"FERRY_CHECKPOINT_LOCAL_DIR", "/scratch/ckpt-%h"}, {"FERRY_CHECKPOINT_REDUNDANCY", "partner"}}));
  // A relative directory is made absolute, as --checkpoint-dir is; none is the default.
  o = parse_ok({"-H", "localhost,192.0.2.1", "--checkpoint-local-dir", "ck", "--checkpoint-redundancy", "partner",
                "sh"});
  EXPECT_EQ(o.fault.checkpoint_local_dir.front(), '/');
  EXPECT_FALSE(parse_ok({"--checkpoint-redundancy", "none", "sh"}).fault.partner_redundancy);
}

TEST(LauncherFaultOptions, PartnerRedundancyRefusesWhatCannotWork) {
  EXPECT_EQ(parse_error({"--checkpoint-redundancy", "xor", "sh"}),
            "mpirun: --checkpoint-redundancy needs none or partner, not 'xor'");
  EXPECT_EQ(parse_error({"-H", "localhost,192.0.2.1", "--checkpoint-redundancy", "partner", "sh"}),
            "mpirun: --checkpoint-redundancy partner needs --checkpoint-local-dir DIR (each host's own storage)");
  EXPECT_EQ(parse_error({"--checkpoint-local-dir", "/tmp/x", "sh"}),
            "mpirun: --checkpoint-local-dir needs --checkpoint-redundancy partner (node-local files alone do not "
            "survive the loss of their host)");
  EXPECT_EQ(parse_error({"-n", "2", "--checkpoint-local-dir", "/tmp/x", "--checkpoint-redundancy", "partner", "sh"}),
            "mpirun: --checkpoint-redundancy partner needs ranks on at least two hosts (this job has 1): a copy "
            "on the same host does not survive its loss");
  EXPECT_EQ(parse_error({"-H", "localhost,192.0.2.1", "--checkpoint-dir", "/tmp", "--checkpoint-local-dir", "/tmp/x",
                         "--checkpoint-redundancy", "partner", "sh"}),
            "mpirun: --checkpoint-redundancy partner writes to --checkpoint-local-dir; leave out --checkpoint-dir");
}

}  // namespace
}  // namespace ferry::launcher
