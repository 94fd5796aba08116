#include "spawned_jobs.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "common/config.h"
#include "common/debug.h"
#include "options.h"
#include "placement.h"
#include "pmix_host.h"
#include "rank_environment.h"

extern char** environ;

namespace ferry::launcher {

struct SpawnedJobs::App {
  std::unique_ptr<LocalRanks> ranks;
};

struct SpawnedJobs::Job {
  JobDescription description;
  std::vector<App> apps;
  bool abandoned = false;  // its start failed: its exits do not count
};

namespace {

std::string count_text(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The PATH a spawned process will search: its app's env, else -x/-genv,
// else mpirun's own.
std::optional<std::string> path_for(const SpawnApp& app, const SpawnContext& context) {
  for (const std::string& e : app.env)
    if (e.rfind("PATH=", 0) == 0) return e.substr(5);
  for (const auto& [name, value] : context.environment)
    if (name == "PATH") return value;
  return config::environment("PATH");
}

}  // namespace

SpawnedJobs::SpawnedJobs(int epoll_fd, uint8_t stdout_kind, uint8_t stderr_kind, SpawnContext context,
                         PmixHost& server, const RankDefaults& defaults, int null_fd,
                         std::function<OutputSink*(int)> sink_for)
    : epoll_fd_(epoll_fd),
      stdout_kind_(stdout_kind),
      stderr_kind_(stderr_kind),
      context_(std::move(context)),
      server_(server),
      defaults_(defaults),
      null_fd_(null_fd),
      sink_for_(std::move(sink_for)) {}

SpawnedJobs::~SpawnedJobs() = default;

std::string SpawnedJobs::refuse(SpawnRequest& request, const Refusal& refusal, const std::string& what) {
  request.answer(refusal.status);
  std::string line = "mpirun: cannot spawn " + what + " for rank " + std::to_string(request.parent_rank) + " of " +
                     request.parent_nspace + ": " + refusal.why;
  FERRY_DEBUG(kLaunch, "spawn refused (%s): %s", PMIx_Error_string(refusal.status), refusal.why.c_str());
  return line;
}

// MPI-3.1 §10.3.4: `host` names where the processes run. Any host of the
// allocation is a valid name; only mpirun's own can be used yet.
std::optional<SpawnedJobs::Refusal> SpawnedJobs::check_hosts(const SpawnRequest& request) const {
  for (const SpawnApp& app : request.apps)
    for (const std::string& name : app.hosts) {
      bool here = is_this_host(name) || name == context_.hostname;
      bool listed = false;
      for (const hosts::HostEntry& h : context_.hosts) listed = listed || h.name == name;
      std::string from = app.hostfile.empty() ? "" : " (from hostfile '" + app.hostfile + "')";
      if (!here && !listed)
        return Refusal{PMIX_ERR_JOB_FAILED_TO_MAP, "host '" + name + "'" + from + " is not in mpirun's allocation"};
      if (!here)
        return Refusal{PMIX_ERR_NOT_SUPPORTED, "host '" + name + "'" + from +
                                                   " is not mpirun's own host; spawning onto other hosts is not "
                                                   "supported yet"};
    }
  return std::nullopt;
}

// Slots as mpirun counts them for the first job (placement.cc): this
// host's in the host list, the processes running here hold theirs, more
// than the free ones needs --oversubscribe and never passes max_slots. A
// job on this host alone may always oversubscribe it.
std::optional<SpawnedJobs::Refusal> SpawnedJobs::check_slots(int wanted, int slots_in_use) const {
  if (context_.hosts.empty()) return std::nullopt;
  int64_t slots = 0, cap = 0;
  bool capped = true;
  bool other_hosts = false;
  for (const hosts::HostEntry& h : context_.hosts) {
    if (!(is_this_host(h.name) || h.name == context_.hostname)) {
      other_hosts = true;
      continue;
    }
    slots += std::max(0, h.slots);
    if (h.max_slots > 0) cap += h.max_slots;
    else capped = false;
  }
  int64_t used = slots_in_use + running();
  int64_t free = std::max<int64_t>(0, slots - used);
  std::string elsewhere = other_hosts ? " (spawning onto other hosts is not supported yet)" : "";
  if (wanted > free && !context_.oversubscribe)
    return Refusal{PMIX_ERR_JOB_INSUFFICIENT_RESOURCES,
                   count_text(wanted, "process", "processes") + " requested but mpirun's host has " +
                       count_text(free, "free slot", "free slots") + " (" + count_text(slots, "slot", "slots") + ", " +
                       std::to_string(used) + " in use)" + elsewhere + "; add slots or use --oversubscribe"};
  if (capped && cap > 0 && used + wanted > cap)
    return Refusal{PMIX_ERR_JOB_INSUFFICIENT_RESOURCES,
                   count_text(wanted, "process", "processes") + " requested but mpirun's host allows " +
                       std::to_string(cap) + " (max_slots) and " + std::to_string(used) + " run there" + elsewhere};
  return std::nullopt;
}

std::optional<SpawnedJobs::Refusal> SpawnedJobs::resolve_programs(SpawnRequest& request) const {
  for (SpawnApp& app : request.apps) {
    if (app.cmd.empty()) return Refusal{PMIX_ERR_JOB_NO_EXE_SPECIFIED, "no program given"};
    if (app.maxprocs < 1)
      return Refusal{PMIX_ERR_BAD_PARAM, "'" + app.cmd + "': maxprocs is " + std::to_string(app.maxprocs)};
    struct stat st;
    if (!app.wdir.empty() && (::stat(app.wdir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
      return Refusal{PMIX_ERR_JOB_WDIR_NOT_FOUND, "working directory '" + app.wdir + "' does not exist"};
    // A relative path means one from where the process will run.
    std::string program = app.cmd;
    if (program.find('/') != std::string::npos && program[0] != '/' && !app.wdir.empty())
      program = app.wdir + "/" + program;
    std::optional<std::string> path = path_for(app, context_);
    if (!app.search_path.empty()) path = app.search_path + (path ? ":" + *path : "");
    Resolved found = resolve_program(program, path);
    if (!found.error.empty()) {
      bool missing = found.error.find("not found") != std::string::npos ||
                     found.error.find("does not exist") != std::string::npos;
      return Refusal{missing ? PMIX_ERR_JOB_EXE_NOT_FOUND : PMIX_ERR_JOB_APP_NOT_EXECUTABLE, found.error};
    }
    app.cmd = found.path;
    if (app.cmd[0] != '/' && !app.wdir.empty()) app.cmd = app.wdir + "/" + app.cmd;  // a relative PATH entry
  }
  return std::nullopt;
}

std::string SpawnedJobs::start(SpawnRequest& request, int slots_in_use) {
  if (request.apps.empty()) return refuse(request, {PMIX_ERR_BAD_PARAM, "no apps given"}, "processes");
  std::string what = "'" + request.apps[0].cmd + "'" + (request.apps.size() > 1 ? " and other apps" : "");
  int wanted = 0;
  for (const SpawnApp& app : request.apps) wanted += std::max(0, app.maxprocs);
  if (auto refusal = resolve_programs(request)) return refuse(request, *refusal, what);
  if (auto refusal = check_hosts(request)) return refuse(request, *refusal, what);
  if (auto refusal = check_slots(wanted, slots_in_use)) return refuse(request, *refusal, what);

  // The job as the first one is described (job_info.h), on this host.
  const int id = int(jobs_.size()) + 1;
  auto job = std::make_unique<Job>();
  JobDescription& d = job->description;
  d.nspace = context_.first_nspace + "." + std::to_string(id);
  d.num_ranks = wanted;
  d.secret = context_.secret;
  d.universe_size = context_.universe_size;
  d.parent_nspace = request.parent_nspace;
  d.parent_rank = request.parent_rank;
  NodeDescription node{context_.hostname, {}};
  for (int r = 0; r < wanted; ++r) node.ranks.push_back(r);
  d.nodes.push_back(std::move(node));
  for (const SpawnApp& app : request.apps) d.app_sizes.push_back(app.maxprocs);
  try {
    server_.register_job(d, id);
  } catch (const std::exception& e) {
    return refuse(request, {PMIX_ERR_JOB_FAILED_TO_LAUNCH, e.what()}, what);
  }
  Job& j = *job;
  jobs_.push_back(std::move(job));

  // Each app is a set of ranks of its own (its program, argv, environment).
  std::string failure;
  int first = 0;
  for (size_t a = 0; a < request.apps.size() && failure.empty(); ++a) {
    const SpawnApp& app = request.apps[a];
    LocalRanksSetup setup;
    setup.nspace = d.nspace;
    for (int r = first; r < first + app.maxprocs; ++r) setup.ranks.push_back(r);
    setup.num_ranks = wanted;
    setup.first_local_rank = first;
    setup.local_size = wanted;
    setup.program_path = app.cmd;
    setup.argv = app.argv;
    setup.working_dir = app.wdir;
    setup.tag_output = context_.tag_output;
    setup.job_tag = std::to_string(id);
    setup.end_lines = true;
    setup.hostname = context_.hostname;
    setup.event_group = uint32_t(groups_.size());
    groups_.emplace_back(id - 1, int(a));
    j.apps.push_back({std::make_unique<LocalRanks>(epoll_fd_, stdout_kind_, stderr_kind_, std::move(setup), defaults_,
                                                   [this](int, int stream) { return sink_for_(stream); })});
    Environment base = base_environment(environ, context_.environment);
    for (const std::string& e : app.env)
      if (size_t eq = e.find('='); eq != std::string::npos) base.set(e.substr(0, eq), e.substr(eq + 1));
    LocalRanks& ranks = *j.apps.back().ranks;
    for (int i = 0; i < ranks.size() && failure.empty(); ++i) {
      try {
        ranks.start(i, base, server_, null_fd_);
      } catch (const std::exception& e) {
        failure = "rank " + std::to_string(ranks.rank_at(i)) + ": " + e.what();
      }
    }
    first += app.maxprocs;
  }
  if (!failure.empty()) {
    // Nothing of a job that did not start whole is left running.
    j.abandoned = true;
    for (App& app : j.apps) app.ranks->signal(SIGKILL);
    server_.deregister_job(d);
    return refuse(request, {PMIX_ERR_JOB_FAILED_TO_LAUNCH, failure}, what);
  }
  FERRY_DEBUG(kLaunch, "spawned %s for rank %d of %s: %d processes of %s", d.nspace.c_str(), request.parent_rank,
              request.parent_nspace.c_str(), wanted, request.apps[0].cmd.c_str());
  request.answer(PMIX_SUCCESS, d.nspace);
  return "";
}

void SpawnedJobs::on_output(uint64_t event_data) {
  auto group = size_t(event_data >> 40);
  if (group >= groups_.size()) return;
  auto [job, app] = groups_[group];
  jobs_[size_t(job)]->apps[size_t(app)].ranks->on_output(event_data);
}

std::optional<SpawnedJobs::Exit> SpawnedJobs::reaped(pid_t pid, int wait_status) {
  for (const auto& job : jobs_)
    for (App& app : job->apps)
      if (std::optional<LocalRanks::Exit> exit = app.ranks->reaped(pid, wait_status))
        return Exit{job->description.nspace, exit->rank, pid, wait_status, !job->abandoned};
  return std::nullopt;
}

std::string SpawnedJobs::nspace_of(int job_id) const {
  if (job_id < 1 || size_t(job_id) > jobs_.size()) return "";
  return jobs_[size_t(job_id) - 1]->description.nspace;
}

void SpawnedJobs::signal(int sig, const std::string& spared_nspace, int spared_rank) {
  for (const auto& job : jobs_)
    for (App& app : job->apps)
      app.ranks->signal(sig, job->description.nspace == spared_nspace ? spared_rank : -1);
}

void SpawnedJobs::kill_leftovers() {
  for (const auto& job : jobs_)
    for (App& app : job->apps) app.ranks->kill_leftovers();
}

int SpawnedJobs::running() const {
  int n = 0;
  for (const auto& job : jobs_)
    for (const App& app : job->apps) n += app.ranks->running();
  return n;
}

}  // namespace ferry::launcher
