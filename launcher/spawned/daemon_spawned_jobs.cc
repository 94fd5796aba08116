#include "launcher/spawned/daemon_spawned_jobs.h"

#include <signal.h>

#include "common/debug.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {

std::string encode_remote_spawn(const RemoteSpawn& spawn) {
  const SpawnedJobSetup& s = spawn.setup;
  const JobDescription& d = s.description;
  wire::Encoder e(wire::Type::kSpawnJob);
  e.u32(spawn.position).i32(s.job_id).u8(s.tag_output ? 1 : 0);
  e.str(d.nspace).i32(d.num_ranks).str(d.secret).i32(d.universe_size).str(d.parent_nspace).i32(d.parent_rank);
  e.u32(uint32_t(d.nodes.size())).u32(uint32_t(d.this_node));
  for (const NodeDescription& n : d.nodes) {
    e.str(n.hostname).u32(uint32_t(n.ranks.size()));
    for (int r : n.ranks) e.i32(r);
  }
  e.u32(uint32_t(s.environment.size()));
  for (const auto& [name, value] : s.environment) e.str(name).str(value);
  e.u32(uint32_t(s.apps.size()));
  for (const SpawnApp& a : s.apps) encode_app(e, a);
  return e.finish();
}

bool decode_remote_spawn(std::string_view body, RemoteSpawn* spawn) {
  wire::Decoder d(body);
  SpawnedJobSetup& s = spawn->setup;
  JobDescription& j = s.description;
  spawn->position = d.u32();
  s.job_id = d.i32();
  s.tag_output = d.u8() != 0;
  j.nspace = d.str();
  j.num_ranks = d.i32();
  j.secret = d.str();
  j.universe_size = d.i32();
  j.parent_nspace = d.str();
  j.parent_rank = d.i32();
  uint32_t nnodes = std::min<uint32_t>(d.u32(), 1u << 16);
  j.this_node = int(d.u32());
  for (uint32_t i = 0; i < nnodes && d.ok(); ++i) {
    NodeDescription node{d.str(), {}};
    uint32_t n = std::min<uint32_t>(d.u32(), 1u << 20);
    for (uint32_t k = 0; k < n && d.ok(); ++k) {
      int r = d.i32();
      if (r < 0 || r >= j.num_ranks) return false;
      node.ranks.push_back(r);
    }
    j.nodes.push_back(std::move(node));
  }
  if (j.this_node < 0 || size_t(j.this_node) >= j.nodes.size()) return false;
  uint32_t nenv = std::min<uint32_t>(d.u32(), 1u << 16);
  for (uint32_t i = 0; i < nenv && d.ok(); ++i) {
    std::string name = d.str();
    s.environment.emplace_back(name, d.str());
  }
  uint32_t napps = std::min<uint32_t>(d.u32(), 1u << 12);
  for (uint32_t i = 0; i < napps && d.ok(); ++i) {
    s.apps.push_back(decode_app(d));
    j.app_sizes.push_back(s.apps.back().maxprocs);
  }
  return d.ok();
}

DaemonSpawnedJobs::DaemonSpawnedJobs(PmixHost& server, SpawnedIo io, std::function<void(const std::string&)> send_up,
                                     std::function<void(const std::string&, const std::vector<int>&)> part_ended)
    : server_(server), io_(std::move(io)), send_up_(std::move(send_up)), part_ended_(std::move(part_ended)) {
  // Each process's lines go up as kOutput, tagged already.
  io_.sink_for = [this](int rank, int stream) {
    sinks_.push_back(OutputSink{-1, false, {}});
    OutputSink& sink = sinks_.back();
    sink.deliver = [this, rank, stream](const char* data, size_t len) {
      send_up_(
          wire::Encoder(wire::Type::kOutput).u32(uint32_t(rank)).u8(uint8_t(stream)).str({data, len}).finish());
    };
    return &sink;
  };
}

DaemonSpawnedJobs::~DaemonSpawnedJobs() = default;

void DaemonSpawnedJobs::start(RemoteSpawn spawn) {
  const int id = spawn.setup.job_id;
  const uint32_t position = spawn.position;
  auto answer = [&](pmix_status_t status, const std::string& why) {
    send_up_(wire::Encoder(wire::Type::kSpawnStarted).i32(id).i32(status).str(why).u32(position).finish());
  };
  // The programs as this host has them.
  if (auto refusal = resolve_programs(spawn.setup.apps, spawn.setup.environment)) {
    answer(refusal->status, refusal->why);
    return;
  }
  size_t index = jobs_.size();
  auto first_group = uint32_t(groups_.size());
  for (size_t a = 0; a < spawn.setup.apps.size(); ++a) groups_.emplace_back(index, int(a));
  jobs_.push_back(std::make_unique<SpawnedJobHere>(std::move(spawn.setup), server_, io_, first_group));
  end_due_.push_back(false);
  std::string failure = jobs_.back()->start();
  if (!failure.empty()) {
    answer(PMIX_ERR_JOB_FAILED_TO_LAUNCH, failure);
    return;
  }
  end_due_.back() = true;
  answer(PMIX_SUCCESS, "");
}

void DaemonSpawnedJobs::drop(int job_id) {
  for (auto& job : jobs_)
    if (job->job_id() == job_id) job->abandon();
}

void DaemonSpawnedJobs::on_output(uint64_t event_data) {
  auto group = size_t(event_data >> 40);
  if (group >= groups_.size()) return;
  auto [job, app] = groups_[group];
  jobs_[job]->on_output(app, event_data);
}

bool DaemonSpawnedJobs::reaped(pid_t pid, int wait_status) {
  for (size_t k = 0; k < jobs_.size(); ++k) {
    SpawnedJobHere& job = *jobs_[k];
    if (std::optional<LocalRanks::Exit> exit = job.reaped(pid, wait_status)) {
      // mpirun was told already that a job it abandoned did not start.
      if (!job.abandoned())
        send_up_(wire::Encoder(wire::Type::kSpawnedExited)
                     .i32(job.job_id())
                     .u32(uint32_t(exit->rank))
                     .i32(exit->pid)
                     .i32(exit->wait_status)
                     .finish());
      // After its last exit went up: mpirun hears of the part's end in order.
      if (end_due_[k] && job.running() == 0) {
        end_due_[k] = false;
        const JobDescription& d = job.description();
        part_ended_(d.nspace, d.nodes[size_t(d.this_node)].ranks);
      }
      return true;
    }
  }
  return false;
}

void DaemonSpawnedJobs::aborted(int job_id, int rank, int code) {
  send_up_(wire::Encoder(wire::Type::kSpawnedAbort).i32(job_id).u32(uint32_t(rank)).i32(code).finish());
}

void DaemonSpawnedJobs::signal(int sig) {
  for (auto& job : jobs_) job->signal(sig);
}

void DaemonSpawnedJobs::kill_all() {
  for (auto& job : jobs_) {
    job->signal(SIGKILL);
    job->kill_leftovers();
  }
}

}  // namespace ferry::launcher
