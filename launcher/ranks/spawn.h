// Starting one rank: a child that shares mpirun's memory until it calls exec
// (clone with CLONE_VM|CLONE_VFORK, as posix_spawn does), so starting many
// ranks costs no page-table copies. posix_spawn itself cannot set the
// parent-death signal, hence this small equivalent.
#pragma once

#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <vector>

namespace ferry::launcher {

struct RankLaunch {
  const char* path;          // resolved program
  char* const* argv;
  char* const* envp;
  int stdin_fd;              // becomes the rank's fd 0 (may be 0 itself)
  int stdout_fd;             // becomes fd 1
  int stderr_fd;             // becomes fd 2
  const char* working_dir;   // nullptr: mpirun's
  const sigset_t* signal_mask;  // the mask to exec with (mpirun blocks some)
  bool default_sigpipe;      // mpirun ignores SIGPIPE; the rank must not
  const rlimit* file_limit;  // RLIMIT_NOFILE to exec with; nullptr: mpirun's
  // The cpus the rank may run on (--bind-to); nullptr: not bound. Last, so
  // that launches written without it keep compiling.
  const cpu_set_t* cpu_set = nullptr;
  // With `inherited`, the rank closes every descriptor above 2 but these
  // (ascending: those mpirun itself inherited, inherited_descriptors())
  // before exec; nullptr: it closes none.
  const std::vector<int>* inherited = nullptr;
};

struct SpawnResult {
  pid_t pid = -1;            // > 0: running the program
  int error = 0;             // else: errno of the step that failed
  const char* step = "";     // "exec", "chdir", "sched_setaffinity", ...
};

// Starts the rank in its own session and process group (so that the job's
// teardown reaches whatever the rank started, and the scheduler weighs each
// rank as a session: spawn.cc), with PR_SET_PDEATHSIG so that it dies with
// mpirun even if mpirun is killed with SIGKILL.
SpawnResult spawn_rank(const RankLaunch& launch);

// The descriptors above 2 this process holds, ascending: called at
// start-up, before the launcher opens any of its own, so that every other
// descriptor is the launcher's. Not all of those are close-on-exec (PMIx's
// sockets to the ranks already connected are not), and the k-th rank
// started inherited the k-1 before it: 1,022 descriptors in the last of
// 1,024 ranks. Those the launcher itself inherited pass on to the ranks.
std::vector<int> inherited_descriptors();

}  // namespace ferry::launcher
