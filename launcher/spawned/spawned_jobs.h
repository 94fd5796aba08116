// The jobs that ranks start with PMIx_Spawn (MPI_Comm_spawn, MPI-3.1
// §10.3): mpirun checks the request against its allocation and picks the
// hosts the job runs on: those its apps name (`host`, `hostfile`; several
// are filled in the order named), else mpirun's own if the job fits its
// free slots, else the first host of the job with a node daemon where it
// fits, else those hosts' free slots in order (as placement.cc fills hosts
// with the first job's ranks). On
// mpirun's host it registers a new namespace with its PMIx server (the
// first job's description, plus PMIX_PARENT_ID and PMIX_SPAWNED) and starts
// the processes like the first job's ranks (spawned_job_here.h); on another
// host the node daemon does the same for its part (daemon_spawned_jobs.h)
// and says how it went. The spawning process gets the namespace once every
// part has started, or an error status with a line on stderr saying why
// (and no part of the job runs).
//
// Spawned processes are ranks like the others for the rest of the job:
// their output is forwarded, a failure ends the whole job, and the job's
// end (a failure, a signal, --timeout) ends them. The owner (job.cc) runs
// the event loop and hands over their output events and exits, local and
// reported by daemons.
//
// Apps of MPI_Comm_spawn_multiple that name different hosts are placed app
// by app. Not yet: hosts of the allocation that run no rank of the first
// job (no daemon there), binding.
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
#include "launcher/job.h"
#include "launcher/pmix/job_info.h"
#include "launcher/ranks/local_ranks.h"
#include "launcher/ranks/output_forwarding.h"
#include "launcher/spawned/spawn_request.h"
#include "launcher/spawned/spawned_job_here.h"

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
  // The other hosts that run ranks of the first job, with a node daemon
  // there: where spawned jobs may go besides mpirun's host, in host order.
  struct DaemonHost {
    std::string name;  // as the plan names it (hostfile, -H)
    int position;      // in the daemon tree
    int first_job_ranks;
  };
  std::vector<DaemonHost> daemon_hosts;
};

class SpawnedJobs {
 public:
  // Output events carry `stdout_kind`/`stderr_kind`; `sink_for(1 or 2)` is
  // where spawned processes' stdout and stderr go; `null_fd` is their stdin.
  // `send_toward(position, frame)`: a frame down the tree to a daemon.
  // `announce(nspace, size, positions)`: the hosts of a new job (its
  // fences) and every other host's server (PmixHost::know_job) are told of
  // it before it starts.
  SpawnedJobs(int epoll_fd, uint8_t stdout_kind, uint8_t stderr_kind, SpawnContext context, PmixHost& server,
              const RankDefaults& defaults, int null_fd, std::function<OutputSink*(int)> sink_for,
              std::function<void(int, const std::string&)> send_toward,
              std::function<void(const std::string&, int, const std::vector<int>&)> announce);
  ~SpawnedJobs();
  SpawnedJobs(const SpawnedJobs&) = delete;
  SpawnedJobs& operator=(const SpawnedJobs&) = delete;

  // `sent(nspace, positions)`: job `nspace` was sent to the daemons at
  // `positions` (kSpawnJob), each of which says how its part's start went
  // (remote_started) and later, under FERRY_PROFILE, sends the part's
  // counter files.
  void on_sent_to_daemons(std::function<void(const std::string&, const std::vector<int>&)> sent) {
    sent_ = std::move(sent);
  }

  // Starts the job `request` asks for and answers it (for a job on another
  // host, once its daemon has said how it went: remote_started).
  // `slots_in_use`: the first job's processes running on this host;
  // `first_job_running`: on all hosts. Returns "" when started (or sent to
  // a daemon), else the line ("mpirun: ...") saying why not, which the
  // caller prints; the spawning rank has its error status then, and
  // nothing runs.
  std::string start(SpawnRequest& request, int slots_in_use, int first_job_running);
  // A daemon's kSpawnStarted for its part of a job: once every part has
  // said, answers the spawning process ("" or the line to print, as
  // start()); a job that did not start whole is ended everywhere.
  std::string remote_started(int job_id, int position, pmix_status_t status, const std::string& why);

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
  // A daemon's kSpawnedExited: the exit, unless it is not news.
  std::optional<Exit> remote_exited(int job_id, int rank, pid_t pid, int wait_status);
  // The daemon at `position` is gone, and its spawned processes with it;
  // with -1, every daemon's (mpirun gives up on them).
  void remote_lost(int position);

  // The tree position of the host running process `rank` of spawned job
  // `nspace`, or -1 when there is no such process.
  int position_of(const std::string& nspace, int rank) const;

  // The namespace of spawned job `job_id` (ServerEvent::job), or "".
  std::string nspace_of(int job_id) const;

  // Every running spawned process's group on this host, but the one spared
  // (an aborting process, which exits by itself); those on other hosts get
  // the signal that mpirun sends down the tree.
  void signal(int sig, const std::string& spared_nspace = "", int spared_rank = -1);
  void kill_leftovers();
  int running() const;

 private:
  struct Job;
  using Refusal = SpawnRefusal;
  struct Target {
    std::string host;
    int position = 0;  // 0: mpirun's host
    int count = 0;     // processes there
  };

  std::optional<Refusal> place(const SpawnRequest& request, int wanted, int slots_in_use,
                               std::vector<Target>* where) const;
  // A host's slots in the host list: their sum, and the sum of max_slots
  // when every entry for the host sets one (0 when any leaves it open).
  struct HostSlots {
    int64_t slots = 0;
    int64_t cap = 0;
  };
  HostSlots slots_of(const SpawnContext::DaemonHost* daemon) const;
  int64_t free_slots(const SpawnContext::DaemonHost* daemon, int64_t used) const;
  // Whether `wanted` more processes fit on mpirun's host (`daemon` null)
  // or a daemon's, `used` slots being taken there.
  std::optional<Refusal> check_slots(const SpawnContext::DaemonHost* daemon, int wanted, int64_t used) const;
  int running_on(int position) const;
  void abandon(Job& job);
  std::string refuse(SpawnRequest& request, const Refusal& refusal);

  int epoll_fd_;
  uint8_t stdout_kind_, stderr_kind_;
  SpawnContext context_;
  PmixHost& server_;
  const RankDefaults& defaults_;
  int null_fd_;
  std::function<OutputSink*(int)> sink_for_;
  std::function<void(int, const std::string&)> send_toward_;
  std::function<void(const std::string&, int, const std::vector<int>&)> announce_;
  std::function<void(const std::string&, const std::vector<int>&)> sent_;
  std::vector<std::unique_ptr<Job>> jobs_;  // job id k at k - 1
  std::vector<std::pair<int, int>> groups_;  // event group -> (job index, app index)
};

}  // namespace ferry::launcher
