// How a rank ended, in words and as mpirun's exit status.
//
// mpirun reports the first failure of a job with one line, e.g.
//   mpirun: rank 2 (pid 1234) was killed by signal 9 (Killed)
// and exits with the status a shell would give that rank: its exit status,
// 128+N for signal N, or the error code passed to MPI_Abort.
#pragma once

#include <sys/types.h>

#include <string>

namespace ferry::launcher {

// The first thing that went wrong in a job.
struct Failure {
  std::string message;  // the line mpirun prints (empty: print nothing)
  int exit_status = 1;  // what mpirun exits with
};

// A rank's wait status that ends the job: a non-zero exit or a signal.
// Returns nothing for a clean exit (status 0).
bool rank_failed(int wait_status);
// `host`: where the rank ran, when not on mpirun's host ("rank 2 (pid 1234
// on h2) exited with status 3"). `job`: the namespace of a job started by
// PMIx_Spawn ("rank 0 of ferry.77.1 (pid 1240) ..."); empty: the first job.
Failure rank_exit_failure(int rank, pid_t pid, int wait_status, const std::string& host = "",
                          const std::string& job = "");

// A rank called MPI_Abort (PMIx_Abort) with `code` (on `host`, when not
// mpirun's; of `job`, when not the first).
Failure rank_abort_failure(int rank, int code, const std::string& host = "", const std::string& job = "");

// mpirun itself received `signo` (SIGINT, SIGTERM, SIGHUP) and passed it on.
Failure interrupted_failure(int signo);

// "exited with status 3", "was killed by signal 9 (Killed)".
std::string describe_wait_status(int wait_status);

// The shell's convention for a wait status: the exit status, or 128+signal.
int shell_status(int wait_status);

}  // namespace ferry::launcher
