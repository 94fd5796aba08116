#include "launcher/spawned/spawned_jobs.h"

#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>

#include "common/debug.h"
#include "launcher/hosts/placement.h"
#include "launcher/pmix/pmix_host.h"
#include "launcher/spawned/daemon_spawned_jobs.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {

struct SpawnedJobs::Job {
  JobDescription description;            // every node of it
  std::vector<int> positions;            // each node's host: 0 mpirun's
  std::vector<int> rank_position;        // each rank's host
  std::unique_ptr<SpawnedJobHere> here;  // its processes on mpirun's host
  // Its processes on daemons' hosts whose end mpirun has not heard of, and
  // the spawning process's request until every daemon has said how its
  // part's start went.
  std::vector<bool> remote_alive;
  int parts_pending = 0;
  SpawnRefusal failure{PMIX_SUCCESS, ""};  // the first part that failed
  SpawnRequest pending;
  bool abandoned = false;                // its start failed: its exits do not count

  int remote_running() const { return int(std::count(remote_alive.begin(), remote_alive.end(), true)); }
};

namespace {

std::string count_text(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

SpawnedJobs::SpawnedJobs(int epoll_fd, uint8_t stdout_kind, uint8_t stderr_kind, SpawnContext context,
                         PmixHost& server, const RankDefaults& defaults, int null_fd,
                         std::function<OutputSink*(int)> sink_for,
                         std::function<void(int, const std::string&)> send_toward,
                         std::function<void(const std::string&, int, const std::vector<int>&)> announce)
    : epoll_fd_(epoll_fd),
      stdout_kind_(stdout_kind),
      stderr_kind_(stderr_kind),
      context_(std::move(context)),
      server_(server),
      defaults_(defaults),
      null_fd_(null_fd),
      sink_for_(std::move(sink_for)),
      send_toward_(std::move(send_toward)),
      announce_(std::move(announce)) {}

SpawnedJobs::~SpawnedJobs() = default;

std::string SpawnedJobs::refuse(SpawnRequest& request, const Refusal& refusal) {
  request.answer(refusal.status);
  std::string what = request.apps.empty() ? "processes"
                                          : "'" + request.apps[0].cmd + "'" +
                                                (request.apps.size() > 1 ? " and other apps" : "");
  std::string line = "mpirun: cannot spawn " + what + " for rank " + std::to_string(request.parent_rank) + " of " +
                     request.parent_nspace + ": " + refusal.why;
  FERRY_DEBUG(kLaunch, "spawn refused (%s): %s", PMIx_Error_string(refusal.status), refusal.why.c_str());
  return line;
}

// MPI-3.1 §10.3.4: `host` names where the processes run, any host of the
// allocation. Apps of MPI_Comm_spawn_multiple that name different hosts are
// placed one after the other, each on its own (an app naming none on any
// host). Several hosts named: the processes fill their free slots in
// the order named (the last takes the rest under --oversubscribe). None
// named: the job runs on one host if one has room for all of it (mpirun's
// first, then the daemons' in order), else it fills their free slots in
// that order.
std::optional<SpawnedJobs::Refusal> SpawnedJobs::place(const SpawnRequest& request, int wanted, int slots_in_use,
                                                       std::vector<Target>* where) const {
  std::vector<std::string> named;  // "" is mpirun's host
  std::vector<std::vector<std::string>> app_named(request.apps.size());  // each app's own
  for (size_t a = 0; a < request.apps.size(); ++a)
    for (const std::string& name : request.apps[a].hosts) {
      const SpawnApp& app = request.apps[a];
      bool here = is_this_host(name) || name == context_.hostname;
      bool listed = false;
      for (const hosts::HostEntry& h : context_.hosts) listed = listed || h.name == name;
      std::string from = app.hostfile.empty() ? "" : " (from hostfile '" + app.hostfile + "')";
      if (!here && !listed)
        return Refusal{PMIX_ERR_JOB_FAILED_TO_MAP, "host '" + name + "'" + from + " is not in mpirun's allocation"};
      std::string key = here ? "" : name;
      if (std::find(named.begin(), named.end(), key) == named.end()) named.push_back(key);
      if (std::find(app_named[a].begin(), app_named[a].end(), key) == app_named[a].end()) app_named[a].push_back(key);
    }
  auto daemon_named = [&](const std::string& name) -> const SpawnContext::DaemonHost* {
    for (const SpawnContext::DaemonHost& d : context_.daemon_hosts)
      if (d.name == name) return &d;
    return nullptr;
  };
  for (const std::string& name : named)
    if (!name.empty() && daemon_named(name) == nullptr)
      return Refusal{PMIX_ERR_NOT_SUPPORTED, "host '" + name +
                                                 "' runs no rank of the job, so mpirun has no node daemon there to "
                                                 "start processes (not supported yet)"};
  const int64_t used_here = slots_in_use + running_on(0);
  // Unnamed, mpirun's host takes spawned jobs only if it is part of the
  // allocation (as for the first job's ranks).
  bool here_listed = context_.hosts.empty();
  for (const hosts::HostEntry& h : context_.hosts)
    here_listed = here_listed || is_this_host(h.name) || h.name == context_.hostname;
  std::vector<std::string> all_hosts;  // in the order processes fill them
  if (here_listed || context_.daemon_hosts.empty()) all_hosts.push_back("");
  for (const SpawnContext::DaemonHost& d : context_.daemon_hosts) all_hosts.push_back(d.name);

  // Fills the free slots of `keys` ("" mpirun's host) in order with `count`
  // processes, appended to `where`; the last one takes the rest under
  // --oversubscribe. Slots taken stay taken for the next call.
  std::map<std::string, int64_t> free_left;
  auto spread = [&](const std::vector<std::string>& keys, int count) -> std::optional<Refusal> {
    int64_t left = count, free_total = 0;
    std::string names;
    for (const std::string& name : keys) {
      const SpawnContext::DaemonHost* d = name.empty() ? nullptr : daemon_named(name);
      if (!free_left.count(name))
        free_left[name] = free_slots(d, d != nullptr ? d->first_job_ranks + running_on(d->position) : used_here);
      int64_t take = std::min(left, free_left[name]);
      free_left[name] -= take;
      free_total += free_left[name] + take;
      names += std::string(names.empty() ? "" : ", ") + "'" + (d != nullptr ? d->name : context_.hostname) + "'";
      where->push_back({d != nullptr ? d->name : context_.hostname, d != nullptr ? d->position : 0, int(take)});
      left -= take;
    }
    if (left > 0 && !context_.oversubscribe)
      return Refusal{PMIX_ERR_JOB_INSUFFICIENT_RESOURCES,
                     count_text(count, "process", "processes") + " requested but hosts " + names + " have " +
                         count_text(free_total, "free slot", "free slots") + "; add slots or use --oversubscribe"};
    where->back().count += int(left);
    std::erase_if(*where, [](const Target& t) { return t.count == 0; });
    return std::nullopt;
  };
  // MPI_Comm_spawn_multiple whose apps name hosts of their own: app by app.
  bool per_app = false;
  for (const auto& hosts : app_named) per_app = per_app || (hosts != app_named[0]);
  if (per_app) {
    where->clear();
    for (size_t a = 0; a < request.apps.size(); ++a) {
      if (auto refusal = spread(app_named[a].empty() ? all_hosts : app_named[a], request.apps[a].maxprocs)) {
        refusal->why = "app " + std::to_string(a) + " ('" + request.apps[a].cmd + "'): " + refusal->why;
        return refusal;
      }
    }
    return std::nullopt;
  }
  if (named.size() > 1) {
    where->clear();
    return spread(named, wanted);
  }
  if (named.size() == 1 && !named[0].empty()) {
    const SpawnContext::DaemonHost* d = daemon_named(named[0]);
    if (auto refusal = check_slots(d, wanted, d->first_job_ranks + running_on(d->position))) return refusal;
    *where = {{d->name, d->position, wanted}};
    return std::nullopt;
  }
  std::optional<Refusal> here = check_slots(nullptr, wanted, used_here);
  if (!named.empty() || (here_listed && !here) || context_.daemon_hosts.empty()) {
    *where = {{context_.hostname, 0, wanted}};
    return here;
  }
  for (const SpawnContext::DaemonHost& d : context_.daemon_hosts)
    if (!check_slots(&d, wanted, d.first_job_ranks + running_on(d.position))) {
      *where = {{d.name, d.position, wanted}};
      return std::nullopt;
    }
  // No one host has room for all of them: they fill the hosts in order,
  // as the first job's ranks do.
  where->clear();
  if (!spread(all_hosts, wanted)) return std::nullopt;
  if (!here)  // mpirun's host is outside the allocation; the others are full
    return Refusal{PMIX_ERR_JOB_INSUFFICIENT_RESOURCES,
                   count_text(wanted, "process", "processes") + " requested but no host of the job has room for them"};
  here->why += " (and the hosts of the job have fewer free slots in all)";
  return here;
}

// Slots as mpirun counts them for the first job (placement.cc): a host's in
// the host list, the processes running there hold theirs, more than the
// free ones needs --oversubscribe and never passes max_slots. A job on
// mpirun's host alone may always oversubscribe it.
SpawnedJobs::HostSlots SpawnedJobs::slots_of(const SpawnContext::DaemonHost* daemon) const {
  HostSlots total;
  bool capped = true;
  for (const hosts::HostEntry& h : context_.hosts) {
    bool match = daemon != nullptr ? h.name == daemon->name : is_this_host(h.name) || h.name == context_.hostname;
    if (!match) continue;
    total.slots += std::max(0, h.slots);
    if (h.max_slots > 0) total.cap += h.max_slots;
    else capped = false;
  }
  if (!capped) total.cap = 0;
  return total;
}

std::optional<SpawnedJobs::Refusal> SpawnedJobs::check_slots(const SpawnContext::DaemonHost* daemon, int wanted,
                                                             int64_t used) const {
  if (context_.hosts.empty()) return std::nullopt;
  const auto [slots, cap] = slots_of(daemon);
  std::string host = daemon != nullptr ? "host '" + daemon->name + "'" : "mpirun's host";
  int64_t free = std::max<int64_t>(0, slots - used);
  if (wanted > free && !context_.oversubscribe)
    return Refusal{PMIX_ERR_JOB_INSUFFICIENT_RESOURCES,
                   count_text(wanted, "process", "processes") + " requested but " + host + " has " +
                       count_text(free, "free slot", "free slots") + " (" + count_text(slots, "slot", "slots") + ", " +
                       std::to_string(used) + " in use); add slots or use --oversubscribe"};
  if (cap > 0 && used + wanted > cap)
    return Refusal{PMIX_ERR_JOB_INSUFFICIENT_RESOURCES,
                   count_text(wanted, "process", "processes") + " requested but " + host + " allows " +
                       std::to_string(cap) + " (max_slots) and " + std::to_string(used) + " run there"};
  return std::nullopt;
}

int64_t SpawnedJobs::free_slots(const SpawnContext::DaemonHost* daemon, int64_t used) const {
  if (context_.hosts.empty()) return INT32_MAX;
  const auto [slots, cap] = slots_of(daemon);
  int64_t free = std::max<int64_t>(0, slots - used);
  if (cap > 0) free = std::min(free, std::max<int64_t>(0, cap - used));
  return free;
}

int SpawnedJobs::running_on(int position) const {
  int n = 0;
  for (const auto& job : jobs_) {
    if (position == 0 && job->here) n += job->here->running();
    for (size_t r = 0; r < job->remote_alive.size(); ++r)
      if (job->remote_alive[r] && job->rank_position[r] == position) ++n;
  }
  return n;
}

std::string SpawnedJobs::start(SpawnRequest& request, int slots_in_use, int first_job_running) {
  if (request.apps.empty()) return refuse(request, {PMIX_ERR_BAD_PARAM, "no apps given"});
  int wanted = 0;
  for (const SpawnApp& app : request.apps) wanted += std::max(0, app.maxprocs);
  std::vector<Target> where;
  if (auto refusal = place(request, wanted, slots_in_use, &where)) return refuse(request, *refusal);

  // The job as the first one is described (job_info.h): its ranks in order
  // over the hosts it got.
  const int id = int(jobs_.size()) + 1;
  auto job = std::make_unique<Job>();
  JobDescription& d = job->description;
  d.nspace = context_.first_nspace + "." + std::to_string(id);
  d.num_ranks = wanted;
  d.secret = context_.secret;
  // MPI_UNIVERSE_SIZE is "the total number of processes that are
  // expected" (MPI-3.1 §10.5.1), and a job placed beyond the allocation's
  // slots (mpirun's host alone, or --oversubscribe) makes that total grow:
  // never less than the processes running once this job has started, as
  // the first job's is never less than the job. Told the stale count, a
  // child of a 1-process job that spawned 2 on a 2-core host would find no
  // room beyond its own MPI_COMM_WORLD, where its parents just made room
  // for it (MPICH's spawn tests then skip their part in the children and
  // the parent waits for them forever).
  d.universe_size = int(std::clamp<int64_t>(int64_t(first_job_running) + running() + wanted,
                                            context_.universe_size, INT32_MAX));
  d.parent_nspace = request.parent_nspace;
  d.parent_rank = request.parent_rank;
  for (const SpawnApp& app : request.apps) d.app_sizes.push_back(app.maxprocs);
  int next = 0;
  for (const Target& t : where) {
    // One node per host, its ranks ascending (apps placed one after the
    // other may come back to a host).
    auto known = std::find(job->positions.begin(), job->positions.end(), t.position);
    if (known == job->positions.end()) {
      d.nodes.push_back({t.host, {}});
      job->positions.push_back(t.position);
      known = job->positions.end() - 1;
    }
    NodeDescription& node = d.nodes[size_t(known - job->positions.begin())];
    for (int k = 0; k < t.count; ++k, ++next) {
      node.ranks.push_back(next);
      job->rank_position.push_back(t.position);
    }
  }
  SpawnedJobSetup setup;
  setup.description = d;
  setup.job_id = id;
  setup.apps = request.apps;
  setup.environment = context_.environment;
  setup.tag_output = context_.tag_output;
  // Before anyone can ask about its processes.
  announce_(d.nspace, wanted, job->positions);

  // mpirun's own part first: if it cannot start, nothing was sent anywhere.
  auto local = std::find(job->positions.begin(), job->positions.end(), 0);
  if (local != job->positions.end()) {
    if (auto refusal = resolve_programs(setup.apps, context_.environment)) return refuse(request, *refusal);
    SpawnedIo io;
    io.epoll_fd = epoll_fd_;
    io.stdout_kind = stdout_kind_;
    io.stderr_kind = stderr_kind_;
    io.defaults = &defaults_;
    io.null_fd = null_fd_;
    io.sink_for = [this](int, int stream) { return sink_for_(stream); };
    auto first_group = uint32_t(groups_.size());
    for (size_t a = 0; a < request.apps.size(); ++a) groups_.emplace_back(id - 1, int(a));
    SpawnedJobSetup mine = setup;
    mine.description.this_node = int(local - job->positions.begin());
    job->here = std::make_unique<SpawnedJobHere>(std::move(mine), server_, io, first_group);
    std::string failure = job->here->start();
    if (!failure.empty()) {
      job->abandoned = true;
      jobs_.push_back(std::move(job));
      return refuse(request, {PMIX_ERR_JOB_FAILED_TO_LAUNCH, failure});
    }
  }
  // The daemons resolve the programs on their hosts and start their parts;
  // the spawning process is answered when all of them have said how that went.
  job->remote_alive.assign(size_t(wanted), false);
  std::vector<int> daemons;
  for (size_t n = 0; n < d.nodes.size(); ++n) {
    if (job->positions[n] == 0) continue;
    daemons.push_back(job->positions[n]);
    for (int r : d.nodes[n].ranks) job->remote_alive[size_t(r)] = true;
    ++job->parts_pending;
    SpawnedJobSetup part = setup;
    part.description.this_node = int(n);
    FERRY_DEBUG(kLaunch, "spawning %s on %s (daemon %d) for rank %d of %s", d.nspace.c_str(),
                d.nodes[n].hostname.c_str(), job->positions[n], request.parent_rank, request.parent_nspace.c_str());
    send_toward_(job->positions[n], encode_remote_spawn({uint32_t(job->positions[n]), std::move(part)}));
  }
  if (!daemons.empty() && sent_) sent_(d.nspace, daemons);
  Job& j = *job;
  jobs_.push_back(std::move(job));
  if (j.parts_pending > 0) {
    j.pending = request;
    request.callback = nullptr;  // answered through `pending` only
    return "";
  }
  FERRY_DEBUG(kLaunch, "spawned %s for rank %d of %s: %d processes of %s", j.description.nspace.c_str(),
              request.parent_rank, request.parent_nspace.c_str(), wanted, request.apps[0].cmd.c_str());
  request.answer(PMIX_SUCCESS, j.description.nspace);
  return "";
}

std::string SpawnedJobs::remote_started(int job_id, int position, pmix_status_t status, const std::string& why) {
  if (job_id < 1 || size_t(job_id) > jobs_.size()) return "";
  Job& j = *jobs_[size_t(job_id) - 1];
  if (j.parts_pending == 0) return "";  // given up on already
  --j.parts_pending;
  auto node = std::find(j.positions.begin(), j.positions.end(), position);
  std::string host = node != j.positions.end() ? j.description.nodes[size_t(node - j.positions.begin())].hostname : "?";
  if (status != PMIX_SUCCESS) {
    // Nothing of this part runs there (the daemon made sure).
    for (size_t r = 0; r < j.remote_alive.size(); ++r)
      if (j.rank_position[r] == position) j.remote_alive[r] = false;
    if (j.failure.status == PMIX_SUCCESS) j.failure = {status, why + " (on " + host + ")"};
  }
  if (j.parts_pending > 0) return "";
  if (j.failure.status == PMIX_SUCCESS) {
    FERRY_DEBUG(kLaunch, "spawned %s on %zu hosts for rank %d of %s", j.description.nspace.c_str(),
                j.positions.size(), j.pending.parent_rank, j.pending.parent_nspace.c_str());
    j.pending.answer(PMIX_SUCCESS, j.description.nspace);
    return "";
  }
  // A job that did not start whole does not run at all.
  abandon(j);
  return refuse(j.pending, j.failure);
}

void SpawnedJobs::abandon(Job& j) {
  j.abandoned = true;
  if (j.here) j.here->abandon();
  int id = 0;
  for (size_t k = 0; k < jobs_.size(); ++k)
    if (jobs_[k].get() == &j) id = int(k) + 1;
  for (int p : j.positions)
    if (p > 0) send_toward_(p, wire::Encoder(wire::Type::kDropJob).u32(uint32_t(p)).i32(id).finish());
  j.remote_alive.assign(j.remote_alive.size(), false);
}

void SpawnedJobs::on_output(uint64_t event_data) {
  auto group = size_t(event_data >> 40);
  if (group >= groups_.size()) return;
  auto [job, app] = groups_[group];
  if (jobs_[size_t(job)]->here) jobs_[size_t(job)]->here->on_output(app, event_data);
}

std::optional<SpawnedJobs::Exit> SpawnedJobs::reaped(pid_t pid, int wait_status) {
  for (const auto& job : jobs_)
    if (job->here)
      if (std::optional<LocalRanks::Exit> exit = job->here->reaped(pid, wait_status))
        return Exit{job->description.nspace, exit->rank, pid, wait_status, !job->here->abandoned()};
  return std::nullopt;
}

std::optional<SpawnedJobs::Exit> SpawnedJobs::remote_exited(int job_id, int rank, pid_t pid, int wait_status) {
  if (job_id < 1 || size_t(job_id) > jobs_.size()) return std::nullopt;
  Job& j = *jobs_[size_t(job_id) - 1];
  if (rank < 0 || size_t(rank) >= j.remote_alive.size() || !j.remote_alive[size_t(rank)]) return std::nullopt;
  j.remote_alive[size_t(rank)] = false;
  return Exit{j.description.nspace, rank, pid, wait_status, !j.abandoned};
}

void SpawnedJobs::remote_lost(int position) {
  for (const auto& job : jobs_) {
    bool there = false;
    for (size_t r = 0; r < job->remote_alive.size(); ++r)
      if (position < 0 || job->rank_position[r] == position) {
        there = there || job->remote_alive[r] || job->parts_pending > 0;
        job->remote_alive[r] = false;
      }
    if (there && job->parts_pending > 0) {
      job->parts_pending = 0;
      job->pending.answer(PMIX_ERR_JOB_TERMINATED);
    }
  }
}

int SpawnedJobs::position_of(const std::string& nspace, int rank) const {
  for (const auto& job : jobs_)
    if (job->description.nspace == nspace && !job->abandoned)
      return rank >= 0 && size_t(rank) < job->rank_position.size() ? job->rank_position[size_t(rank)] : -1;
  return -1;
}

std::string SpawnedJobs::nspace_of(int job_id) const {
  if (job_id < 1 || size_t(job_id) > jobs_.size()) return "";
  return jobs_[size_t(job_id) - 1]->description.nspace;
}

void SpawnedJobs::signal(int sig, const std::string& spared_nspace, int spared_rank) {
  for (const auto& job : jobs_)
    if (job->here) job->here->signal(sig, job->description.nspace == spared_nspace ? spared_rank : -1);
}

void SpawnedJobs::kill_leftovers() {
  for (const auto& job : jobs_)
    if (job->here) job->here->kill_leftovers();
}

int SpawnedJobs::running() const {
  int n = 0;
  for (const auto& job : jobs_) n += (job->here ? job->here->running() : 0) + job->remote_running();
  return n;
}

}  // namespace ferry::launcher
