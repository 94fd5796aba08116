#include "launcher/options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <memory>

#include "launcher/hosts/host_selection.h"

#ifndef FERRY_VERSION_STRING
#define FERRY_VERSION_STRING "unknown"
#endif

namespace ferry::launcher {
namespace {

// Open MPI and Hydra accept multi-letter options behind a single dash; CLI11
// reads "-np" as "-n p". Every such spelling is rewritten here, in one table,
// before CLI11 sees the arguments.
struct Spelling {
  std::string_view single_dash;
  std::string_view canonical;
};
constexpr Spelling kSingleDashSpellings[] = {
    {"-np", "--np"},                                // Open MPI, Hydra
    {"-genv", "--genv"},                            // Hydra
    {"-env", "--env"},                              // Hydra
    {"-wdir", "--wdir"},                            // Open MPI, Hydra
    {"-wd", "--wdir"},                              // Open MPI
    {"-ppn", "--ppn"},                              // Hydra
    {"-npernode", "--npernode"},                    // Open MPI
    {"-hostfile", "--hostfile"},                    // Open MPI, Hydra
    {"-machinefile", "--machinefile"},              // Open MPI, Hydra
    {"-host", "--host"},                            // Open MPI
    {"-hosts", "--hosts"},                          // Hydra
    {"-map-by", "--map-by"},                        // Open MPI, Hydra
    {"-bind-to", "--bind-to"},                      // Open MPI, Hydra
    {"-report-bindings", "--report-bindings"},      // Open MPI
    {"-launch-agent", "--launch-agent"},            // Open MPI
    {"-launcher-exec", "--launcher-exec"},          // Hydra
    {"-oversubscribe", "--oversubscribe"},          // Open MPI (pre-5 spelling)
    {"-tag-output", "--tag-output"},                // Open MPI (pre-5 spelling)
    {"-allow-run-as-root", "--allow-run-as-root"},  // Open MPI (pre-5 spelling)
    {"-timeout", "--timeout"},                      // Open MPI
    {"-usize", "--universe-size"},                  // Hydra
    {"-ckpoint-prefix", "--checkpoint-dir"},        // Hydra
    {"-ckpoint-interval", "--checkpoint-interval"}, // Hydra
    {"-ckpoint-num", "--restart-from"},             // Hydra
    {"-ckpointlib", "--ckpointlib"},                // Hydra
    {"-version", "--version"},                      // Open MPI, Hydra
    {"-help", "--help"},                            // Hydra
};

constexpr int kMaxRanks = 65535;
constexpr int kMaxSeconds = 24 * 24 * 3600;

// What CLI11 stores; validated and turned into Options afterwards, so that
// every complaint is one line worded by us.
struct RawOptions {
  std::string num_ranks;
  std::string ranks_per_host;
  bool oversubscribe = false;
  bool allow_run_as_root = false;
  bool tag_output = false;
  bool no_torch_env = false;
  std::vector<std::string> exports;
  std::vector<std::pair<std::string, std::string>> genv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string working_dir;
  std::vector<std::string> hostfiles;
  std::vector<std::string> host_lists;
  std::string map_by;
  std::string bind_to;
  bool report_bindings = false;
  std::string launch_agent;
  bool accept_new_host_keys = false;
  std::string timeout;
  std::string universe_size;
  RawFaultOptions fault;
};

constexpr const char* kFooter = R"(
Everything after the program name is passed to the program; "--" ends
mpirun's options explicitly. Single-dash spellings -np, -genv, -env, -wdir,
-wd, -ppn, -npernode, -hostfile, -machinefile, -host, -hosts, -map-by,
-bind-to, -report-bindings, -launch-agent, -launcher-exec, -oversubscribe,
-tag-output, -allow-run-as-root, -timeout, -usize, -ckpoint-prefix,
-ckpoint-interval, -ckpoint-num, -ckpointlib are accepted too.

Hosts: without --hostfile or -H, and outside a Slurm allocation, all ranks
run on this host, and more ranks than cores is allowed (the ranks then share
cores). A hostfile names one host a line, in Open MPI's form "node1 slots=4
max_slots=8" or Hydra's "node1:4"; '#' starts a comment, a line without a
count is one slot, and a host named twice gets the slots of both lines.
-H node1:2,node2 names hosts on the command line (one slot each unless
":N"); with a hostfile, -H picks hosts from it. Inside a Slurm allocation
(salloc, sbatch) and without either, the hosts are SLURM_JOB_NODELIST, with
SLURM_TASKS_PER_NODE slots each. With hosts and without -n, one rank runs
per slot (or N per host with --ppn N).

Mapping: ranks fill each host's slots in host order (--map-by slot, the
default; core, socket and numa place hosts the same way), or go round the
hosts one at a time (--map-by node); --ppn N puts N ranks on each host in
turn. More ranks than slots is refused without --oversubscribe; max_slots is
never exceeded. Binding: --bind-to core|socket|numa|none; by default a rank
is bound to a core when its host runs 2 ranks or fewer, else to a socket,
and not at all on an oversubscribed host. --report-bindings prints them.

Other hosts are reached over ssh through libssh: your keys, ssh-agent,
~/.ssh/config and known_hosts apply. A host key not in known_hosts is refused
unless --accept-new-host-keys adds it; a changed key is always refused.
--launch-agent CMD runs "CMD HOST COMMAND..." instead (e.g. ssh, or a
wrapper). The program is found on this host and must exist at the same path
on every host (a shared filesystem, as with the working directory).

Each rank is a PMIx client of mpirun (on other hosts, of mpirun's daemon
there). Its environment is mpirun's, plus the -x/-genv/-env variables, the
PMIx connection variables, and
OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE,NODE_RANK}, PMI_RANK, PMI_SIZE.
Training scripts written for torchrun also find its worker variables: RANK,
LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK (the host's index),
GROUP_WORLD_SIZE, ROLE_RANK, ROLE_WORLD_SIZE, ROLE_NAME, MASTER_ADDR and
MASTER_PORT (an address of rank 0's host and a port free there, chosen by
mpirun), TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS and
TORCHELASTIC_RUN_ID. A value set with -x/-genv or exported wins;
--no-torch-env sets none of them.

Output: each rank's stdout and stderr go to mpirun's stdout and stderr, whole
lines at a time, so that lines of different ranks never mix. --tag-output
prefixes each line with "[RANK] ", e.g. "[3] hello".
Input: mpirun's stdin goes to rank 0; the other ranks read /dev/null.

Ending: when a rank exits with a non-zero status, is killed by a signal, or
calls MPI_Abort, mpirun ends the other ranks (SIGTERM, then SIGKILL) and exits
with that status (128+N for signal N, the MPI_Abort error code). SIGINT and
SIGTERM sent to mpirun are passed to the ranks. A job still running after
--timeout SECONDS (or MPIEXEC_TIMEOUT) is ended the same way, and mpirun
exits 124. Otherwise mpirun exits 0.

Restarts: with --max-restarts N, a job that failed (a rank's non-zero exit,
signal or MPI_Abort, a lost host, --timeout) is ended as above and started
again, after --restart-delay SECONDS, with the same arguments and placement;
the ranks see FERRY_RESTART_COUNT (1, 2, ...) and restore from the latest
complete checkpoint in --checkpoint-dir. A host that was lost is left out
when the other hosts' slots hold every rank. Once N restarts are spent,
mpirun prints one line per attempt and exits with the last failure's status.
Checkpoints: SIGUSR1 to mpirun, or every --checkpoint-interval SECONDS, makes
MPIX_Checkpoint_due answer 1 on every rank.

Running as root is allowed; --allow-run-as-root is accepted for scripts
written for Open MPI, which refuses root without it.
Diagnostics: FERRY_DEBUG=launch prints what mpirun does, one line per fact.
)";

// CLI11 2.1 cannot be told the usage line; this says where the program goes.
class Formatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: mpirun [OPTIONS] [-n N] PROGRAM [ARGS...]\n";
  }
};

std::unique_ptr<CLI::App> make_app(RawOptions& raw) {
  auto app = std::make_unique<CLI::App>(
      "Starts N copies of a program, on this host or on the hosts given, as the ranks of one MPI job.", "mpirun");
  app->formatter(std::make_shared<Formatter>());
  app->footer(kFooter);
  // Scripts add options to a default command line: of a single-valued
  // option given twice, the last counts (as in Open MPI and Hydra).
  const auto last = CLI::MultiOptionPolicy::TakeLast;
  app->add_option("-n,-c,--np", raw.num_ranks, "Number of ranks to start (default 1); also -np")
      ->type_name("N")
      ->multi_option_policy(last);
  app->add_option("-f,--hostfile,--machinefile", raw.hostfiles,
                  "Hosts to run on, one a line: \"node1 slots=4\" or \"node1:4\"; repeatable; also -hostfile, "
                  "-machinefile")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app->add_option("-H,--host,--hosts", raw.host_lists,
                  "Hosts to run on, comma-separated, each one slot unless :N; with a hostfile, picks hosts from it; "
                  "repeatable; also -host, -hosts")
      ->type_name("HOST[:N],...")
      ->allow_extra_args(false);
  app->add_option("--ppn,--npernode,-N", raw.ranks_per_host,
                  "Ranks per host, N on each host in turn; also -ppn (Hydra), -npernode (Open MPI)")
      ->type_name("N")
      ->multi_option_policy(last);
  app->add_option("--map-by", raw.map_by,
                  "Rank order over hosts: slot (fill each host, default), node (round robin), core, socket, numa, "
                  "ppr:N:node")
      ->type_name("POLICY")
      ->multi_option_policy(last);
  app->add_option("--bind-to", raw.bind_to, "Bind each rank to a core, socket or numa node, or none")
      ->type_name("OBJECT")
      ->multi_option_policy(last);
  app->add_flag("--report-bindings", raw.report_bindings, "Print each rank's binding on stderr");
  app->add_flag("--oversubscribe", raw.oversubscribe,
                "Allow more ranks than slots (always allowed on this host alone)");
  app->add_option("--launch-agent,--launcher-exec", raw.launch_agent,
                  "Start remote daemons with \"CMD HOST COMMAND...\" instead of libssh; also -launch-agent, "
                  "-launcher-exec")
      ->type_name("CMD")
      ->multi_option_policy(last);
  app->add_flag("--accept-new-host-keys", raw.accept_new_host_keys,
                "Add unknown ssh host keys to known_hosts (a changed key is always refused)");
  app->add_option("-x", raw.exports,
                  "Set VAR=value, or pass mpirun's own VAR, in every rank (Open MPI); repeatable")
      ->type_name("VAR[=value]")
      ->allow_extra_args(false);
  app->add_option("--genv", raw.genv, "Set VAR to value in every rank (Hydra); repeatable; also -genv")
      ->type_name("VAR value")
      ->allow_extra_args(false);
  app->add_option("--env", raw.env, "Same as --genv (Hydra's per-program form); also -env")
      ->type_name("VAR value")
      ->allow_extra_args(false);
  app->add_option("--wdir", raw.working_dir,
                  "Working directory of the ranks; a relative PROGRAM is found from there; also -wdir, -wd")
      ->type_name("DIR")
      ->multi_option_policy(last);
  app->add_flag("--allow-run-as-root", raw.allow_run_as_root,
                "Accepted for Open MPI scripts; Ferry runs as root without it");
  app->add_flag("--tag-output", raw.tag_output, "Prefix every output line with \"[RANK] \"");
  app->add_flag("--no-torch-env", raw.no_torch_env,
                "Do not set torchrun's variables (RANK, WORLD_SIZE, MASTER_ADDR, ...) in the ranks");
  app->add_option("--timeout", raw.timeout,
                  "End the job, as a failure (exit status 124), once it has run SECONDS; MPIEXEC_TIMEOUT (Hydra) "
                  "sets it too")
      ->type_name("SECONDS")
      ->multi_option_policy(last);
  app->add_option("--universe-size", raw.universe_size,
                  "MPI_UNIVERSE_SIZE: how many processes the job may expect to run, spawned ones included "
                  "(default: the allocation's slots; on this host alone its CPUs); also -usize (Hydra)")
      ->type_name("N")
      ->multi_option_policy(last);
  for (const FaultOption& o : fault_option_table())
    app->add_option(o.name, raw.fault.*o.field, o.help)->type_name(o.type_name)->multi_option_policy(last);
  app->set_version_flag("--version", "mpirun (Ferry) " FERRY_VERSION_STRING);
  // The first argument that is not an option is the program; it and all
  // that follows are left in remaining() for the ranks.
  app->prefix_command();
  return app;
}

// How many values the option `name` takes, as CLI11 declares it: the walk
// below must skip them to tell option values from the program name.
size_t values_taken(const CLI::App& app, std::string_view name) {
  if (name.starts_with("--") && name.find('=') != std::string_view::npos) return 0;  // --np=4
  if (!name.starts_with("--") && name.size() > 2) return 0;                          // -n4
  const CLI::Option* opt = app.get_option_no_throw(std::string(name));
  if (opt == nullptr) return 0;  // unknown: CLI11 reports it
  return size_t(std::max(0, opt->get_items_expected_min()));
}

std::optional<int> parse_count(const std::string& text) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

bool valid_variable_name(const std::string& name) {
  return !name.empty() && name.find('=') == std::string::npos;
}

std::string error_line(const std::string& what) { return "mpirun: " + what; }

ParseOutcome failure(const std::string& what) {
  ParseOutcome out;
  out.kind = ParseOutcome::Kind::kError;
  out.error = error_line(what);
  return out;
}

// The walk behind normalize_arguments(). Also notes the first option whose
// values run out, so that the complaint names it as the user spelled it.
struct Normalized {
  std::vector<std::string> args;
  std::string short_of_values;  // e.g. "-np"
  size_t values_needed = 0;
};

Normalized normalize(std::span<const std::string> args) {
  RawOptions scratch;
  std::unique_ptr<CLI::App> app = make_app(scratch);
  Normalized out;
  out.args.reserve(args.size());
  size_t i = 0;
  while (i < args.size()) {
    const std::string& arg = args[i];
    if (arg == "--" || arg.size() < 2 || arg[0] != '-') break;  // the program's part starts
    std::string canonical = arg;
    for (const Spelling& s : kSingleDashSpellings)
      if (arg == s.single_dash) canonical = s.canonical;
    out.args.push_back(canonical);
    ++i;
    size_t n = values_taken(*app, canonical);
    if (i + n > args.size() && out.short_of_values.empty()) {
      out.short_of_values = arg;
      out.values_needed = n;
    }
    // Values are copied verbatim ("-genv -np x" sets a variable named -np).
    for (size_t k = 0; k < n && i < args.size(); ++k) out.args.push_back(args[i++]);
  }
  for (; i < args.size(); ++i) out.args.push_back(args[i]);
  return out;
}

}  // namespace

std::vector<std::string> normalize_arguments(std::span<const std::string> args) {
  return normalize(args).args;
}

ParseOutcome parse_options(std::span<const std::string> args, const EnvironmentLookup& lookup) {
  RawOptions raw;
  std::unique_ptr<CLI::App> app = make_app(raw);
  Normalized normalized = normalize(args);
  if (!normalized.short_of_values.empty())
    return failure("option " + normalized.short_of_values + " needs " +
                   (normalized.values_needed == 1 ? std::string("a value")
                                                  : std::to_string(normalized.values_needed) + " values") +
                   " (mpirun --help lists the options)");
  // CLI11 consumes a vector from the back.
  std::vector<std::string> reversed(normalized.args.rbegin(), normalized.args.rend());
  try {
    app->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    ParseOutcome out;
    out.kind = ParseOutcome::Kind::kPrintAndExit;
    out.text = app->help();
    return out;
  } catch (const CLI::CallForVersion& e) {
    ParseOutcome out;
    out.kind = ParseOutcome::Kind::kPrintAndExit;
    out.text = std::string(e.what()) + "\n";
    return out;
  } catch (const CLI::ParseError& e) {
    // CLI11's wording ("-x: 1 required VAR[=value] missing"), on one line.
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    return failure(what + " (mpirun --help lists the options)");
  }

  ParseOutcome out;
  Options& o = out.options;

  // The rank count.
  if (!raw.num_ranks.empty()) {
    std::optional<int> n = parse_count(raw.num_ranks);
    if (!n || *n <= 0)
      return failure("-n needs a positive number of ranks, not '" + raw.num_ranks + "'");
    o.num_ranks = *n;
    o.num_ranks_given = true;
  }
  // A time limit: the option, else Hydra's variable (batch scripts and test
  // harnesses such as MPICH's set it).
  {
    std::string text = raw.timeout;
    std::string what = "--timeout";
    if (text.empty())
      if (std::optional<std::string> v = lookup("MPIEXEC_TIMEOUT")) text = *v, what = "MPIEXEC_TIMEOUT";
    if (!text.empty()) {
      std::optional<int> s = parse_count(text);
      if (!s || *s <= 0) return failure(what + " needs a positive number of seconds, not '" + text + "'");
      // The timer counts int milliseconds.
      if (*s > kMaxSeconds) return failure(what + " " + text + " is more than 24 days, the longest time limit");
      o.timeout_s = *s;
    }
  }
  if (!raw.universe_size.empty()) {
    std::optional<int> n = parse_count(raw.universe_size);
    if (!n || *n <= 0)
      return failure("--universe-size needs a positive number of processes, not '" + raw.universe_size + "'");
    o.universe_size = *n;
  }
  if (!raw.ranks_per_host.empty()) {
    std::optional<int> n = parse_count(raw.ranks_per_host);
    if (!n || *n <= 0)
      return failure("-ppn needs a positive number of ranks, not '" + raw.ranks_per_host + "'");
    o.ranks_per_node = *n;
  }
  o.oversubscribe = raw.oversubscribe;
  o.allow_run_as_root = raw.allow_run_as_root;
  o.tag_output = raw.tag_output;
  o.torch_env = !raw.no_torch_env;
  o.report_bindings = raw.report_bindings;
  o.launch_agent = raw.launch_agent;
  o.accept_new_host_keys = raw.accept_new_host_keys;
  if (!raw.map_by.empty()) {
    MapBySpec spec = parse_map_by(raw.map_by);
    if (!spec.error.empty()) return failure(spec.error);
    o.map_by = spec.map_by;
    if (spec.oversubscribe) o.oversubscribe = *spec.oversubscribe;
    if (spec.ranks_per_node > 0) {
      if (o.ranks_per_node > 0 && o.ranks_per_node != spec.ranks_per_node)
        return failure("--map-by " + raw.map_by + " and --ppn " + raw.ranks_per_host + " disagree");
      o.ranks_per_node = spec.ranks_per_node;
    }
  }
  if (!raw.bind_to.empty()) {
    BindToSpec spec = parse_bind_to(raw.bind_to);
    if (!spec.error.empty()) return failure(spec.error);
    o.bind_to = spec.bind_to;
  }
  if (!raw.launch_agent.empty() && raw.launch_agent.find_first_not_of(" \t") == std::string::npos)
    return failure("--launch-agent needs a command, not blanks");

  // Where the ranks run.
  hosts::HostListResult host_list = select_hosts(raw.hostfiles, raw.host_lists, lookup);
  if (!host_list.error.empty()) return failure(host_list.error);
  o.hosts = std::move(host_list.hosts);
  // PMIx numbers the ranks of a host with 16 bits (PMIX_LOCAL_RANK).
  if (o.hosts.empty() && o.num_ranks > kMaxRanks)
    return failure("-n " + raw.num_ranks + " is more ranks than one host can run (at most " +
                   std::to_string(kMaxRanks) + ")");
  PlacementRequest request;
  request.hosts = o.hosts;
  request.num_ranks = o.num_ranks_given ? o.num_ranks : 0;
  request.ranks_per_node = o.ranks_per_node;
  request.map_by = o.map_by;
  request.oversubscribe = o.oversubscribe;
  PlacementResult placed = place_ranks(request, is_this_host);
  if (!placed.error.empty()) {
    ParseOutcome refused;
    refused.kind = ParseOutcome::Kind::kError;
    refused.error = placed.error;  // already "mpirun: ..."
    return refused;
  }
  o.placement = std::move(placed.placement);
  o.placement_request = std::move(request);
  o.num_ranks = int(o.placement.node_of_rank.size());
  for (const PlacedNode& node : o.placement.nodes)
    if (node.ranks.size() > size_t(kMaxRanks))
      return failure(std::to_string(node.ranks.size()) + " ranks on '" + node.host.name +
                     "' are more than one host can run (at most " + std::to_string(kMaxRanks) + ")");

  // Variables for the ranks: -x first, then -genv/-env, later ones winning.
  for (const std::string& x : raw.exports) {
    size_t eq = x.find('=');
    std::string name = x.substr(0, eq);
    if (name.empty()) return failure("-x needs VAR or VAR=value, not '" + x + "'");
    if (eq != std::string::npos) {
      o.environment.emplace_back(name, x.substr(eq + 1));
    } else if (std::optional<std::string> v = lookup(name.c_str())) {
      o.environment.emplace_back(name, *v);
    }
    // -x VAR with VAR unset in mpirun: the ranks see it unset, as mpirun does.
  }
  for (const auto* list : {&raw.genv, &raw.env})
    for (const auto& [name, value] : *list) {
      if (!valid_variable_name(name))
        return failure("-genv/-env needs a variable name without '=', not '" + name + "'");
      o.environment.emplace_back(name, value);
    }

  // Checkpoints and restarts; their settings go to the ranks after -x/-genv.
  if (std::string problem = apply_fault_options(raw.fault, int(o.placement.nodes.size()), o.fault, o.environment); !problem.empty())
    return failure(problem);

  // The working directory, made absolute: the ranks change to it before
  // exec, and a relative program is found from it (as Open MPI and Hydra do).
  if (!raw.working_dir.empty()) {
    struct stat st;
    if (::stat(raw.working_dir.c_str(), &st) != 0)
      return failure("working directory '" + raw.working_dir + "' does not exist");
    if (!S_ISDIR(st.st_mode))
      return failure("working directory '" + raw.working_dir + "' is not a directory");
    o.working_dir = raw.working_dir;
    if (o.working_dir[0] != '/') {
      char cwd[4096];
      if (::getcwd(cwd, sizeof cwd) == nullptr) return failure("cannot read the current directory");
      std::string base = cwd;
      o.working_dir = (base.ends_with('/') ? base : base + "/") + o.working_dir;
    }
  }

  // The program and its arguments.
  std::vector<std::string> rest = app->remaining();
  bool explicit_end = !rest.empty() && rest.front() == "--";
  if (explicit_end) rest.erase(rest.begin());
  if (rest.empty()) return failure("no program given (usage: mpirun -n N PROGRAM [ARGS...])");
  if (!explicit_end && rest.front().size() > 1 && rest.front()[0] == '-')
    return failure("unknown option " + rest.front() + " (mpirun --help lists the options)");
  o.program = rest.front();
  o.program_args = std::move(rest);

  std::string to_resolve = o.program;
  if (!o.working_dir.empty() && o.program[0] != '/' && o.program.find('/') != std::string::npos)
    to_resolve = o.working_dir + "/" + o.program;
  Resolved r = resolve_program(to_resolve, lookup("PATH"));
  if (!r.error.empty()) return failure(r.error);
  o.program_path = r.path;
  if (!o.working_dir.empty() && o.program_path[0] != '/')  // found through a relative PATH entry
    o.program_path = o.working_dir + "/" + o.program_path;
  return out;
}

Resolved resolve_program(const std::string& program, const std::optional<std::string>& path) {
  auto describe = [&](const std::string& candidate) -> std::string {
    struct stat st;
    if (::stat(candidate.c_str(), &st) != 0) return "does not exist";
    if (S_ISDIR(st.st_mode)) return "is a directory";
    if (::access(candidate.c_str(), X_OK) != 0) return "is not executable (permission denied)";
    return "";
  };
  if (program.empty()) return {"", "the program name is empty"};
  if (program.find('/') != std::string::npos) {
    std::string why = describe(program);
    if (!why.empty()) return {"", "program '" + program + "' " + why};
    return {program, ""};
  }
  // execvp's default search path when PATH is unset.
  std::string search = path.value_or("/bin:/usr/bin");
  std::string not_executable;
  size_t start = 0;
  while (start <= search.size()) {
    size_t end = search.find(':', start);
    if (end == std::string::npos) end = search.size();
    std::string dir = search.substr(start, end - start);
    std::string candidate = dir.empty() ? program : dir + "/" + program;
    std::string why = describe(candidate);
    if (why.empty()) return {candidate, ""};
    if (why.starts_with("is not executable") && not_executable.empty()) not_executable = candidate;
    start = end + 1;
  }
  if (!not_executable.empty())
    return {"", "program '" + not_executable + "' is not executable (permission denied)"};
  return {"", "program '" + program + "' not found in PATH"};
}

}  // namespace ferry::launcher
