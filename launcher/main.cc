// mpirun / mpiexec: starts N ranks of a program on this host, serves them
// as their PMIx server, forwards their I/O and signals, and exits with the
// job's status. The steps, in order: parse (nothing started yet), take over
// signals (before PMIx starts its thread), start the PMIx server, register
// the job and run it (again after a failure, with --max-restarts: see
// restarts.h), clean up.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

extern char** environ;

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/debug.h"
#include "launcher/job.h"
#include "launcher/job_plan.h"
#include "launcher/options.h"
#include "launcher/pmix/job_info.h"
#include "launcher/pmix/pmix_host.h"
#include "launcher/profile/profile_report.h"
#include "launcher/ranks/file_limit.h"
#include "launcher/ranks/node_setup.h"
#include "launcher/ranks/spawn.h"
#include "launcher/restart/restarts.h"
#include "launcher/start/remote_start.h"

namespace {

using namespace ferry::launcher;

// A closed fd 0, 1 or 2 would be reused by the first pipe mpirun opens, and
// the ranks' dup2 onto 0-2 would then go wrong: fill the gaps with /dev/null.
void ensure_standard_fds() {
  for (int fd = 0; fd < 3; ++fd)
    if (::fcntl(fd, F_GETFD) < 0) {
      int null_fd = ::open("/dev/null", O_RDWR);
      if (null_fd >= 0 && null_fd != fd) {
        ::dup2(null_fd, fd);
        ::close(null_fd);
      }
    }
}

// The ranks mpirun may start on its own host: those placed here, or, when a
// restart may move ranks here from hosts left out, all of them.
int ranks_here_at_most(const Options& options) {
  if (options.fault.max_restarts > 0) return options.num_ranks;
  int here = 0;
  for (const PlacedNode& node : options.placement.nodes)
    if (node.local) here += int(node.ranks.size());
  return here;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

// One line on stderr, "mpirun: " first (once).
void print_error(const std::string& what) {
  std::fprintf(stderr, "%s%s\n", what.rfind("mpirun: ", 0) == 0 ? "" : "mpirun: ", what.c_str());
}

// Children per daemon in the tree: FERRY_LAUNCH_FANOUT.
int launch_fanout() { return std::max(1, int(ferry::config::integer("FERRY_LAUNCH_FANOUT"))); }

// What mpirun passes to remote hosts besides -x/-genv: its own FERRY_*
// settings and PMIx's MCA parameters, as Open MPI passes OMPI_MCA_*, and the
// user's exported values of torchrun's variables (they win over mpirun's).
std::vector<std::pair<std::string, std::string>> remote_environment(const Options& options) {
  std::vector<std::pair<std::string, std::string>> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    if (name.rfind("FERRY_", 0) == 0 || name.rfind("PMIX_MCA_", 0) == 0 ||
        (options.torch_env && is_training_variable(name)))
      env.emplace_back(name, entry.substr(eq + 1));
  }
  env.insert(env.end(), options.environment.begin(), options.environment.end());
  return env;
}

std::string current_directory() {
  char buffer[4096];
  return ::getcwd(buffer, sizeof buffer) != nullptr ? buffer : "/";
}

// MPI_UNIVERSE_SIZE (PMIX_UNIV_SIZE): --universe-size if given, else the
// slots of mpirun's allocation, the hosts' (hostfile, -H, Slurm) or, on
// this host alone, its CPUs, as Open MPI counts a host without a slot
// count; never less than the job (a spawned job's: spawned_jobs.cc).
int universe_size(const Options& options) {
  if (options.universe_size > 0) return std::max(options.universe_size, options.num_ranks);
  int64_t slots = 0;
  for (const ferry::hosts::HostEntry& h : options.hosts)
    slots += h.max_slots > 0 ? std::min(h.slots, h.max_slots) : std::max(0, h.slots);
  if (options.hosts.empty()) slots = ::sysconf(_SC_NPROCESSORS_ONLN);
  return int(std::clamp<int64_t>(slots, options.num_ranks, INT32_MAX));
}

// The user's own value of `name`: -x/-genv (the last), else mpirun's environment.
std::optional<std::string> user_value(const Options& options, const std::string& name) {
  std::optional<std::string> value;
  for (const auto& [n, v] : options.environment)
    if (n == name) value = v;
  return value ? value : ferry::config::environment(name.c_str());
}
bool user_gave(const Options& options, const std::string& name) { return user_value(options, name).has_value(); }

// torchrun's variables for this attempt: where rank 0's host is met
// (MASTER_ADDR, MASTER_PORT), unless the user gave them. What cannot be
// determined is left unset with one line, once: MPI programs do not need it.
void plan_training(const Options& options, int attempt, JobPlan& plan, int local_node) {
  // main() makes the first attempt's plan twice (once to learn its node): say things once.
  static bool said = false;
  TrainingJob& t = plan.training;
  t.enabled = options.torch_env;
  if (!t.enabled) return;
  t.restart_count = attempt;
  t.max_restarts = options.fault.max_restarts;
  t.run_id = "ferry." + std::to_string(::getpid());  // one id for every attempt, as torchrun's
  t.num_hosts = int(plan.nodes.size());
  std::string problem;
  if (std::optional<std::string> given = user_value(options, "MASTER_ADDR")) {
    // The user's: not replaced, but one that this host cannot even route to
    // would leave init_process_group waiting for its timeout.
    std::string why;
    if (choose_master_addr("", *given, &why).empty() && !said)
      print_error("MASTER_ADDR " + *given + " cannot be reached from this host: " + why +
                  "; a training script's init_process_group would wait for it");
  } else {
    std::string rank0_host, other_host;
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
      const PlanNode& n = plan.nodes[i];
      bool here = int(i) == local_node;
      if (!n.ranks.empty() && n.ranks[0] == 0 && !here) rank0_host = n.host;
      if (!here && other_host.empty()) other_host = n.host;
    }
    // Where mpirun's ssh goes for these names (an alias's HostName).
    RemoteStartOptions remote;
    remote.launch_agent = options.launch_agent;
    if (!rank0_host.empty()) rank0_host = connection_name(rank0_host, remote);
    if (!other_host.empty()) other_host = connection_name(other_host, remote);
    t.master_addr = choose_master_addr(rank0_host, other_host, &problem);
    if (t.master_addr.empty())
      problem = "MASTER_ADDR is not set in the ranks: " + problem + " (give it with -x MASTER_ADDR=...)";
  }
  if (problem.empty() && !user_gave(options, "MASTER_PORT")) {
    t.master_port = pick_free_port(&problem);
    plan.hold_master_port = t.master_port > 0;
    if (t.master_port == 0) problem = "MASTER_PORT is not set in the ranks: " + problem;
  }
  if (!problem.empty() && !said) print_error(problem + "; --no-torch-env turns torchrun's variables off");
  said = true;
}

// The launch agent as the daemons run it too, from wherever they are: a
// program named by a relative path ("./agent.sh") gets mpirun's directory.
std::string absolute_agent(const std::string& agent) {
  size_t start = agent.find_first_not_of(" \t");
  if (start == std::string::npos || agent[start] == '/') return agent;
  size_t end = agent.find_first_of(" \t", start);
  if (agent.substr(start, end - start).find('/') == std::string::npos) return agent;  // found through PATH
  return agent.substr(0, start) + current_directory() + "/" + agent.substr(start);
}

// The plan every node works from: mpirun's host (if it runs ranks) is
// position 0 in the daemon tree, the other hosts 1, 2, ... in host order.
JobPlan make_plan(const Options& options, int attempt, const std::string& nspace, const std::string& secret,
                  int* local_node) {
  JobPlan plan;
  plan.nspace = nspace;
  plan.secret = secret;
  plan.num_ranks = options.num_ranks;
  plan.universe_size = universe_size(options);
  plan.fanout = launch_fanout();
  *local_node = -1;
  for (const PlacedNode& placed : options.placement.nodes) {
    PlanNode node;
    node.host = placed.local && options.hosts.empty() ? host_name() : placed.host.name;
    node.ranks = placed.ranks;
    node.oversubscribed = !options.hosts.empty() && int(placed.ranks.size()) > placed.host.slots;
    if (placed.local && *local_node < 0) {
      *local_node = int(plan.nodes.size());
      node.position = 0;
    } else {
      node.position = ++plan.num_daemons;
    }
    plan.nodes.push_back(std::move(node));
  }
  plan.remote_start.launch_agent = absolute_agent(options.launch_agent);
  plan.remote_start.accept_new_host_keys = options.accept_new_host_keys;
  plan.remote_start.timeout_ms = int(ferry::config::integer("FERRY_LAUNCH_TIMEOUT")) * 1000;
  const long direct_modex_from = ferry::config::integer("FERRY_DIRECT_MODEX_RANKS");
  plan.direct_modex = plan.num_daemons > 0 && direct_modex_from > 0 && plan.num_ranks >= direct_modex_from;
  plan.program_path = options.program_path;
  plan.program_args = options.program_args;
  plan.environment = remote_environment(options);
  plan.working_dir_given = !options.working_dir.empty();
  plan.working_dir = plan.working_dir_given ? options.working_dir : current_directory();
  plan.tag_output = options.tag_output;
  plan.map_by = options.map_by;
  plan.bind_to = options.bind_to;
  plan.report_bindings = options.report_bindings;
  plan_training(options, attempt, plan, *local_node);
  return plan;
}

}  // namespace

int main(int argc, char** argv) {
  ferry::debug::configure();
  ferry::debug::set_identity("mpirun");
  if (auto problem = ferry::config::validate()) {
    std::fprintf(stderr, "mpirun: %s\n", problem->c_str());
    return 1;
  }
  ensure_standard_fds();
  const std::vector<int> inherited_fds = inherited_descriptors();

  std::vector<std::string> args(argv + 1, argv + argc);
  ParseOutcome parsed = parse_options(args, ferry::config::environment);
  switch (parsed.kind) {
    case ParseOutcome::Kind::kPrintAndExit:
      std::fputs(parsed.text.c_str(), stdout);
      return 0;
    case ParseOutcome::Kind::kError:
      std::fprintf(stderr, "%s\n", parsed.error.c_str());
      return 1;
    case ParseOutcome::Kind::kRun:
      break;
  }
  const Options& options = parsed.options;
  // FERRY_PROFILE: a report that could not be written is said now, not lost at the end.
  const std::string profile_report = ferry::launcher::profile::report_path();
  if (std::string why; !profile_report.empty() && !ferry::launcher::profile::check_writable(profile_report, &why)) {
    print_error(why);
    return 1;
  }
  if (std::string dir = ferry::config::value("FERRY_PROFILE_DIR");
      !profile_report.empty() && !dir.empty() && ::access(dir.c_str(), W_OK | X_OK) != 0) {
    print_error("FERRY_PROFILE_DIR: cannot write in " + dir + ": " + std::strerror(errno));
    return 1;
  }
  RankDefaults defaults;
  defaults.inherited_fds = inherited_fds;
  if (std::string problem =
          fit_file_limit("mpirun", ranks_here_at_most(options), launch_fanout(), &defaults.file_limit);
      !problem.empty()) {
    std::fprintf(stderr, "%s\n", problem.c_str());
    return 1;
  }

  defaults.signals = take_over_signals();
  try {
    const std::string secret = make_job_secret();
    // Each attempt is a job of its own to PMIx: ferry.<pid> first, then
    // ferry.<pid>.r1, ... (a restarted rank must never meet the state of
    // its failed predecessor in the server).
    std::string profile_collect_dir;  // FERRY_PROFILE: where the daemons send their ranks' counter files
    PlanMaker plan_for = [&](const Options& o, int attempt, int* local_node) {
      std::string nspace = "ferry." + std::to_string(::getpid());
      if (attempt > 0) nspace += ".r" + std::to_string(attempt);
      JobPlan plan = make_plan(o, attempt, nspace, secret, local_node);
      plan.profile_collect_dir = profile_collect_dir;
      return plan;
    };
    int local_node = -1;
    const JobPlan first = plan_for(options, 0, &local_node);
    PmixHost server(local_node >= 0 ? first.nodes[size_t(local_node)].host : "");
    server.serve_spawns();  // this is mpirun's server, not a node daemon's
    Options run_options = options;
    std::string profile_dir;  // where the ranks keep their counter files (FERRY_PROFILE)
    if (!profile_report.empty()) {
      // The user's FERRY_PROFILE_DIR when given: a directory every host sees (it keeps the files). Else
      // the session directory: private to this mpirun, on this host's local disk, removed with it; the
      // ranks of other hosts count into their node daemon's session directory, and each daemon sends
      // their files here when they have ended (launcher/profile/counter_forwarding.h).
      profile_dir = ferry::config::value("FERRY_PROFILE_DIR");
      if (profile_dir.empty()) {
        profile_dir = server.session_dir().path() + "/profile";
        if (::mkdir(profile_dir.c_str(), 0700) != 0) throw std::runtime_error("cannot make " + profile_dir);
        run_options.environment.emplace_back("FERRY_PROFILE_DIR", profile_dir);
        profile_collect_dir = profile_dir;
      }
    }
    int status = run_with_restarts(run_options, server, defaults, plan_for);
    // The report is the last attempt's (each attempt's ranks count into files of their namespace).
    if (!profile_report.empty())
      ferry::launcher::profile::write_report(profile_report, profile_dir, first.nspace, options.num_ranks, status);
    // Every rank is gone. End here, without finalizing PMIx (see
    // prepare_exit) and without running destructors while PMIx's thread
    // still runs.
    server.prepare_exit();
    std::fflush(nullptr);
    ::_exit(status);
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
}
