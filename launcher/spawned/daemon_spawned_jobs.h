// Spawned jobs that mpirun places on a node daemon's host (MPI_Comm_spawn's
// `host` or `hostfile` naming it, or no free slots on mpirun's host): mpirun
// sends the job down the tree (kSpawnJob); the daemon resolves its programs
// here, registers the namespace with its PMIx server and starts the
// processes (spawned_job_here.h), then says whether that worked
// (kSpawnStarted, with the reason if not), so that the spawning process gets
// its answer only then. Output goes up as the first job's ranks' does; exits
// and aborts go up as kSpawnedExited / kSpawnedAbort; mpirun's signals and
// the end of the job reach them as they reach the daemon's ranks. Once
// every process of a part that started here has ended (killed with a
// dropped job too), the owner hears of it (`part_ended`): under
// FERRY_PROFILE its counter files go up then, as the first job's do.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/spawned/spawned_job_here.h"

namespace ferry::launcher {

// What kSpawnJob carries: the job (as SpawnedJobHere wants it, programs
// not resolved yet) and the daemon that runs it.
struct RemoteSpawn {
  uint32_t position = 0;
  SpawnedJobSetup setup;
};
std::string encode_remote_spawn(const RemoteSpawn& spawn);  // a whole kSpawnJob frame
bool decode_remote_spawn(std::string_view body, RemoteSpawn* spawn);

class DaemonSpawnedJobs {
 public:
  // `send_up`: a frame for mpirun. `part_ended(nspace, ranks)`: the
  // processes of a job's part that started here (its `ranks`) have all
  // ended; said once per part.
  DaemonSpawnedJobs(PmixHost& server, SpawnedIo io, std::function<void(const std::string&)> send_up,
                    std::function<void(const std::string&, const std::vector<int>&)> part_ended);
  ~DaemonSpawnedJobs();

  // A kSpawnJob for this daemon: starts it and answers mpirun.
  void start(RemoteSpawn spawn);
  // mpirun gives up on job `job_id` (another host's part did not start).
  void drop(int job_id);
  void on_output(uint64_t event_data);
  // A reaped child: true if it was a spawned process (its exit went up).
  bool reaped(pid_t pid, int wait_status);
  // A spawned process called PMIx_Abort (ServerEvent::job `job_id`).
  void aborted(int job_id, int rank, int code);
  void signal(int sig);
  void kill_all();

 private:
  PmixHost& server_;
  SpawnedIo io_;
  std::function<void(const std::string&)> send_up_;
  std::function<void(const std::string&, const std::vector<int>&)> part_ended_;
  std::vector<std::unique_ptr<SpawnedJobHere>> jobs_;
  std::vector<bool> end_due_;  // by job index: started here whole, its end not yet said
  std::vector<std::pair<size_t, int>> groups_;  // event group -> (job index, app)
  std::deque<OutputSink> sinks_;
};

}  // namespace ferry::launcher
