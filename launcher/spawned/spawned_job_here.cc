#include "launcher/spawned/spawned_job_here.h"

#include <signal.h>

#include <stdexcept>

#include "common/debug.h"
#include "launcher/pmix/pmix_host.h"
#include "launcher/ranks/rank_environment.h"

extern char** environ;

namespace ferry::launcher {

SpawnedJobHere::SpawnedJobHere(SpawnedJobSetup setup, PmixHost& server, const SpawnedIo& io, uint32_t first_group)
    : setup_(std::move(setup)), server_(server), io_(io), first_group_(first_group) {}

SpawnedJobHere::~SpawnedJobHere() = default;

std::string SpawnedJobHere::start() {
  const JobDescription& d = setup_.description;
  try {
    server_.register_job(d, setup_.job_id);
  } catch (const std::exception& e) {
    abandoned_ = true;
    return e.what();
  }
  // Each app is a set of ranks of its own (its program, argv, environment):
  // those of its ranks that run on this host.
  const NodeDescription& here = d.nodes.at(size_t(d.this_node));
  std::string failure;
  int first = 0;
  for (size_t a = 0; a < setup_.apps.size() && failure.empty(); ++a) {
    const SpawnApp& app = setup_.apps[a];
    LocalRanksSetup s;
    s.nspace = d.nspace;
    for (size_t k = 0; k < here.ranks.size(); ++k)
      if (here.ranks[k] >= first && here.ranks[k] < first + app.maxprocs) {
        if (s.ranks.empty()) s.first_local_rank = int(k);
        s.ranks.push_back(here.ranks[k]);
      }
    s.num_ranks = d.num_ranks;
    s.local_size = int(here.ranks.size());
    s.program_path = app.cmd;
    s.argv = app.argv;
    s.working_dir = app.wdir;
    s.tag_output = setup_.tag_output;
    s.job_tag = std::to_string(setup_.job_id);
    s.end_lines = true;
    s.hostname = here.hostname;
    s.event_group = first_group_ + uint32_t(a);
    auto sink_for = io_.sink_for;
    std::vector<int> ranks = s.ranks;
    apps_.push_back(std::make_unique<LocalRanks>(
        io_.epoll_fd, io_.stdout_kind, io_.stderr_kind, std::move(s), *io_.defaults,
        [sink_for, ranks](int index, int stream) { return sink_for(ranks[size_t(index)], stream); }));
    Environment base = base_environment(environ, setup_.environment);
    for (const std::string& e : app.env)
      if (size_t eq = e.find('='); eq != std::string::npos) base.set(e.substr(0, eq), e.substr(eq + 1));
    LocalRanks& set = *apps_.back();
    for (int i = 0; i < set.size() && failure.empty(); ++i) {
      try {
        set.start(i, base, server_, io_.null_fd);
      } catch (const std::exception& e) {
        failure = "rank " + std::to_string(set.rank_at(i)) + ": " + e.what();
      }
    }
    first += app.maxprocs;
  }
  if (!failure.empty()) {
    // Nothing of a job that did not start whole is left running.
    abandoned_ = true;
    for (auto& set : apps_) set->signal(SIGKILL);
    server_.deregister_job(d);
    return failure;
  }
  FERRY_DEBUG(kLaunch, "started %s: %zu processes of %s on %s", d.nspace.c_str(), here.ranks.size(),
              setup_.apps.empty() ? "?" : setup_.apps[0].cmd.c_str(), here.hostname.c_str());
  return "";
}

void SpawnedJobHere::abandon() {
  abandoned_ = true;
  for (auto& set : apps_) set->signal(SIGKILL);
}

void SpawnedJobHere::on_output(int app, uint64_t event_data) {
  if (app >= 0 && size_t(app) < apps_.size()) apps_[size_t(app)]->on_output(event_data);
}

std::optional<LocalRanks::Exit> SpawnedJobHere::reaped(pid_t pid, int wait_status) {
  for (auto& set : apps_)
    if (std::optional<LocalRanks::Exit> exit = set->reaped(pid, wait_status)) return exit;
  return std::nullopt;
}

void SpawnedJobHere::signal(int sig, int spared_rank) {
  for (auto& set : apps_) set->signal(sig, spared_rank);
}

void SpawnedJobHere::kill_leftovers() {
  for (auto& set : apps_) set->kill_leftovers();
}

int SpawnedJobHere::running() const {
  int n = 0;
  for (const auto& set : apps_) n += set->running();
  return n;
}

}  // namespace ferry::launcher
