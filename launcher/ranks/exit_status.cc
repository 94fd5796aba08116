#include "launcher/ranks/exit_status.h"

#include <sys/wait.h>

#include <cstring>

namespace ferry::launcher {

bool rank_failed(int wait_status) { return !(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0); }

std::string describe_wait_status(int wait_status) {
  if (WIFEXITED(wait_status)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    std::string text = "was killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
    if (WCOREDUMP(wait_status)) text += ", core dumped";
    return text;
  }
  return "ended with wait status " + std::to_string(wait_status);
}

int shell_status(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

Failure rank_exit_failure(int rank, pid_t pid, int wait_status, const std::string& host, const std::string& job) {
  return {"mpirun: rank " + std::to_string(rank) + (job.empty() ? "" : " of " + job) + " (pid " + std::to_string(pid) +
              (host.empty() ? "" : " on " + host) + ") " + describe_wait_status(wait_status),
          shell_status(wait_status)};
}

Failure rank_abort_failure(int rank, int code, const std::string& host, const std::string& job) {
  // An exit status has 8 bits: MPI_Abort(comm, 256) exits 0 in the rank too;
  // mpirun keeps the failure visible with 1 instead.
  int status = code & 0xff;
  return {"mpirun: rank " + std::to_string(rank) + (job.empty() ? "" : " of " + job) +
              (host.empty() ? "" : " on " + host) + " called MPI_Abort with error code " + std::to_string(code),
          status == 0 ? 1 : status};
}

Failure interrupted_failure(int signo) {
  return {"mpirun: received signal " + std::to_string(signo) + " (" + ::strsignal(signo) +
              "), ending the job",
          128 + signo};
}

}  // namespace ferry::launcher
