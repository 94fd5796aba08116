// The open-files limit of the process that starts a host's ranks (mpirun or
// ferryd): raised as far as the host's ranks and tree links need, and a
// clear line when the hard limit is too low. Each case runs in a child
// process, since a lowered hard limit cannot be raised again.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <optional>
#include <string>

#include "launcher/ranks/file_limit.h"

namespace ferry::launcher {
namespace {

// Runs `check` in a child whose limit is soft/hard; true if it held.
bool in_child_with_limit(rlim_t soft, rlim_t hard, const std::function<bool()>& check) {
  pid_t pid = fork();
  if (pid == 0) {
    rlimit lim = {soft, hard};
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) _exit(2);
    _exit(check() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(FileLimit, RaisedForTheHostsRanksAndLinks) {
  EXPECT_TRUE(in_child_with_limit(256, 4096, [] {
    std::optional<rlimit> original;
    if (!fit_file_limit("ferryd", 100, 9, &original).empty()) return false;
    rlimit now;
    getrlimit(RLIMIT_NOFILE, &now);
    // 4 per rank, the links, 64 for the process itself; the ranks get 256 back.
    return now.rlim_cur == 100 * 4 + 9 + 64 && original && original->rlim_cur == 256;
  }));
}

TEST(FileLimit, EnoughAlreadyIsLeftAlone) {
  EXPECT_TRUE(in_child_with_limit(1024, 4096, [] {
    std::optional<rlimit> original;
    if (!fit_file_limit("mpirun", 10, 8, &original).empty() || original) return false;
    rlimit now;
    getrlimit(RLIMIT_NOFILE, &now);
    return now.rlim_cur == 1024;
  }));
}

TEST(FileLimit, AHardLimitTooLowIsOneLine) {
  EXPECT_TRUE(in_child_with_limit(256, 512, [] {
    std::optional<rlimit> original;
    std::string problem = fit_file_limit("ferryd", 200, 9, &original);
    return problem == "ferryd: 200 ranks need about 873 open files, but the limit (ulimit -Hn) is 512";
  }));
}

}  // namespace
}  // namespace ferry::launcher
