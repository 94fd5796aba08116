// The processes of one spawned job on this host, mpirun's or a node
// daemon's: the job registered with this host's PMIx server (its fences are
// answered there when it runs on this host alone, else they go through the
// daemon tree: spawned_fences.h), one LocalRanks set per app (its program,
// argv, environment) with the app's ranks on this host, output forwarded as
// the first job's.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/job.h"
#include "launcher/pmix/job_info.h"
#include "launcher/ranks/local_ranks.h"
#include "launcher/ranks/output_forwarding.h"
#include "launcher/spawned/spawn_request.h"

namespace ferry::launcher {

class PmixHost;

struct SpawnedJobSetup {
  JobDescription description;  // every node of the job; this_node is this host
  int job_id = 0;              // k for the k-th spawned job (ServerEvent::job, "[k,r]" tags)
  std::vector<SpawnApp> apps;  // programs resolved
  std::vector<std::pair<std::string, std::string>> environment;  // -x, -genv
  bool tag_output = false;
};

// How this process starts and watches processes: epoll kinds of their
// output (event groups first_group, first_group + 1, ... one per app), where
// output goes, their stdin.
struct SpawnedIo {
  int epoll_fd = -1;
  uint8_t stdout_kind = 0, stderr_kind = 0;
  const RankDefaults* defaults = nullptr;
  int null_fd = -1;
  std::function<OutputSink*(int rank, int stream)> sink_for;
};

class SpawnedJobHere {
 public:
  SpawnedJobHere(SpawnedJobSetup setup, PmixHost& server, const SpawnedIo& io, uint32_t first_group);
  ~SpawnedJobHere();
  SpawnedJobHere(const SpawnedJobHere&) = delete;
  SpawnedJobHere& operator=(const SpawnedJobHere&) = delete;

  // Registers the job and starts every process. Returns "" or why not; then
  // nothing of it runs any more (started processes are killed, and their
  // exits do not count) and the server has forgotten it.
  std::string start();

  const JobDescription& description() const { return setup_.description; }
  int job_id() const { return setup_.job_id; }
  int apps() const { return int(apps_.size()); }
  void on_output(int app, uint64_t event_data);
  // A reaped child: if one of this job's, its exit (rank, wait status).
  std::optional<LocalRanks::Exit> reaped(pid_t pid, int wait_status);
  bool abandoned() const { return abandoned_; }
  // Another host's part of the job did not start: this part ends (SIGKILL)
  // and its exits do not count.
  void abandon();
  void signal(int sig, int spared_rank = -1);
  void kill_leftovers();
  int running() const;

 private:
  SpawnedJobSetup setup_;
  PmixHost& server_;
  SpawnedIo io_;
  uint32_t first_group_;
  std::vector<std::unique_ptr<LocalRanks>> apps_;
  bool abandoned_ = false;
};

}  // namespace ferry::launcher
