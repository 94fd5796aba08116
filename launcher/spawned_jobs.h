// The jobs that ranks start with PMIx_Spawn (MPI_Comm_spawn, MPI-3.1
// §10.3): mpirun checks the request against its allocation, registers a new
// namespace with its PMIx server (the first job's description, plus
// PMIX_PARENT_ID and PMIX_SPAWNED), starts the processes on its own host
// like the first job's ranks, and answers the spawning process with the
// namespace, or with an error status and a line on stderr saying why.
//
// Spawned processes are ranks like the others for the rest of the job:
// their output is forwarded, a failure ends the whole job, and the job's
// end (a failure, a signal, --timeout) ends them. The owner (job.cc) runs
// the event loop and hands over their output events and exits.
//
// Not yet: processes on other hosts than mpirun's (refused, with the
// reason), binding (spawned processes are not bound).
#pragma once

#include <pmix_common.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/hostfile.h"
#include "job.h"
#include "job_info.h"
#include "local_ranks.h"
#include "output_forwarding.h"
#include "spawn_request.h"

namespace ferry::launcher {

class PmixHost;

// What spawning may use and what every spawned job shares with the first.
struct SpawnContext {
  std::string first_nspace;     // spawned jobs are <first>.1, <first>.2, ...
  std::string secret;           // one secret for all jobs: their ranks connect
  int universe_size = 0;
  std::string hostname;         // this host, as the first job's node map names it
  // mpirun's allocation; empty: this host alone, where any number of
  // processes may run (as for the first job).
  std::vector<hosts::HostEntry> hosts;
  bool oversubscribe = false;   // --oversubscribe
  std::vector<std::pair<std::string, std::string>> environment;  // -x, -genv
  bool tag_output = false;
};

class SpawnedJobs {
 public:
  // Output events carry `stdout_kind`/`stderr_kind`; `sink_for(1 or 2)` is
  // where spawned processes' stdout and stderr go; `null_fd` is their stdin.
  SpawnedJobs(int epoll_fd, uint8_t stdout_kind, uint8_t stderr_kind, SpawnContext context, PmixHost& server,
              const RankDefaults& defaults, int null_fd, std::function<OutputSink*(int)> sink_for);
  ~SpawnedJobs();
  SpawnedJobs(const SpawnedJobs&) = delete;
  SpawnedJobs& operator=(const SpawnedJobs&) = delete;

  // Starts the job `request` asks for and answers it. `slots_in_use`: the
  // first job's processes running on this host. Returns "" when started,
  // else the line ("mpirun: ...") saying why not, which the caller prints;
  // the spawning rank has its error status then, and nothing runs.
  std::string start(SpawnRequest& request, int slots_in_use);

  void on_output(uint64_t event_data);

  struct Exit {
    std::string nspace;
    int rank;
    pid_t pid;
    int wait_status;
    // False for a process of a job whose start failed: mpirun killed it,
    // and the spawning rank has been told already.
    bool counts;
  };
  // A reaped child: if it is a spawned process, its exit.
  std::optional<Exit> reaped(pid_t pid, int wait_status);

  // The namespace of spawned job `job_id` (ServerEvent::job), or "".
  std::string nspace_of(int job_id) const;

  // Every running spawned process's group, but the one spared (an
  // aborting process, which exits by itself).
  void signal(int sig, const std::string& spared_nspace = "", int spared_rank = -1);
  void kill_leftovers();
  int running() const;

 private:
  struct App;
  struct Job;
  struct Refusal {
    pmix_status_t status;
    std::string why;
  };

  std::optional<Refusal> check_hosts(const SpawnRequest& request) const;
  std::optional<Refusal> check_slots(int wanted, int slots_in_use) const;
  // Resolves each app's program in place (app.cmd becomes the path to run).
  std::optional<Refusal> resolve_programs(SpawnRequest& request) const;
  std::string refuse(SpawnRequest& request, const Refusal& refusal, const std::string& what);

  int epoll_fd_;
  uint8_t stdout_kind_, stderr_kind_;
  SpawnContext context_;
  PmixHost& server_;
  const RankDefaults& defaults_;
  int null_fd_;
  std::function<OutputSink*(int)> sink_for_;
  std::vector<std::unique_ptr<Job>> jobs_;  // job id k at k - 1
  std::vector<std::pair<int, int>> groups_;  // event group -> (job index, app index)
};

}  // namespace ferry::launcher
