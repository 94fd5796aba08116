#include "launcher/ranks/spawn.h"

#include <dirent.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace ferry::launcher {
namespace {

struct ChildArgs {
  const RankLaunch* launch;
  pid_t parent;
  // Written by the child, read by the parent after the child has exec'd or
  // exited: they share memory (CLONE_VM) and the parent is suspended until
  // then (CLONE_VFORK).
  int error;
  const char* step;
};

// The child shares mpirun's memory, sanitizer state included, and never
// returns from its stack: instrumenting it would leave stale poison behind
// for the next rank's child.
#define FERRY_CHILD_CODE __attribute__((no_sanitize("address", "undefined")))

[[noreturn]] FERRY_CHILD_CODE void fail(ChildArgs* a, const char* step) {
  a->error = errno;
  a->step = step;
  _exit(127);
}

// Runs in the child on its own stack, sharing mpirun's memory: only system
// calls here, no allocation, no locks, nothing that another thread of mpirun
// (PMIx's) could hold.
FERRY_CHILD_CODE int child_main(void* arg) {
  auto* a = static_cast<ChildArgs*>(arg);
  const RankLaunch& l = *a->launch;
  // A session of its own, and with it a process group of its own (the
  // job's teardown signals the group: whatever the rank started goes too).
  // The session matters to the scheduler: with autogroup scheduling
  // (sched_autogroup_enabled: on in Debian's and Ubuntu's kernels) CPU time
  // is shared between sessions first and between their threads only
  // within each. Left in mpirun's session, the whole job would share one
  // session's part of the host, split thread by thread: busy threads of
  // one rank (a program's spinning thread barrier) then take the cores
  // from the rank whose thread has the work, and every other session on
  // the host weighs as much as the whole job. Hydra starts each rank in a
  // session of its own too. (MPICH's threads/pt2pt/multisend4, 5 ranks of
  // 5 threads on 2 cores, the other sessions' load made negligible: 61 s in
  // one session, 39 s with one per rank, MPICH 38 s.)
  if (::setsid() < 0) fail(a, "setsid");
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(a, "prctl");
  // mpirun may have died before prctl took effect: then nobody would send
  // the signal.
  if (::getppid() != a->parent) _exit(127);
  if (l.stdin_fd != 0 && ::dup2(l.stdin_fd, 0) < 0) fail(a, "dup2");
  if (::dup2(l.stdout_fd, 1) < 0 || ::dup2(l.stderr_fd, 2) < 0) fail(a, "dup2");
  // mpirun's own descriptors (spawn.h): all but those it inherited. A
  // kernel without close_range (before 5.9) leaves them, as before.
  if (l.inherited != nullptr) {
    unsigned from = 3;
    for (int fd : *l.inherited) {
      if (static_cast<unsigned>(fd) > from) ::syscall(SYS_close_range, from, static_cast<unsigned>(fd) - 1, 0u);
      if (static_cast<unsigned>(fd) >= from) from = static_cast<unsigned>(fd) + 1;
    }
    ::syscall(SYS_close_range, from, ~0u, 0u);
  }
  if (l.default_sigpipe) {
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGPIPE, &dfl, nullptr);
  }
  if (::sigprocmask(SIG_SETMASK, l.signal_mask, nullptr) != 0) fail(a, "sigprocmask");
  if (l.file_limit != nullptr) ::setrlimit(RLIMIT_NOFILE, l.file_limit);
  if (l.working_dir != nullptr && ::chdir(l.working_dir) != 0) fail(a, "chdir");
  // Bound before exec, so that the rank's first page touches (and the
  // first-touch NUMA placement they decide) happen where it will run. glibc's
  // sched_setaffinity is the bare system call: safe here.
  if (l.cpu_set != nullptr && ::sched_setaffinity(0, sizeof(cpu_set_t), l.cpu_set) != 0)
    fail(a, "sched_setaffinity");
  ::execve(l.path, l.argv, l.envp);
  fail(a, "exec");
  return 127;
}

// The child's stack. CLONE_VFORK keeps mpirun's only spawning thread
// suspended until the child has exec'd, so one stack serves every rank.
alignas(64) char child_stack[64 * 1024];

}  // namespace

std::vector<int> inherited_descriptors() {
  std::vector<int> fds;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    int own = ::dirfd(dir);
    while (dirent* e = ::readdir(dir)) {
      int fd = std::atoi(e->d_name);
      if (e->d_name[0] != '.' && fd != own && fd > 2) fds.push_back(fd);
    }
    ::closedir(dir);
  }
  std::sort(fds.begin(), fds.end());
  return fds;
}

SpawnResult spawn_rank(const RankLaunch& launch) {
  ChildArgs args{&launch, ::getpid(), 0, ""};
  pid_t pid = ::clone(child_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  SpawnResult result;
  if (pid < 0) {
    result.error = errno;
    result.step = "clone";
    return result;
  }
  if (args.error != 0) {
    // The child has exited (127); the event loop reaps it like any rank.
    result.pid = pid;
    result.error = args.error;
    result.step = args.step;
    return result;
  }
  result.pid = pid;
  return result;
}

}  // namespace ferry::launcher
