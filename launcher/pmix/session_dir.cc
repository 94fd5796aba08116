#include "launcher/pmix/session_dir.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/config.h"
#include "common/debug.h"

namespace ferry::launcher {
namespace {

constexpr std::string_view kPrefix = "ferry-mpirun.";

// PMIx puts its socket rendezvous under this directory, and a socket path
// must fit in sun_path (108 bytes): a long TMPDIR gives way to /tmp.
std::string choose_base() {
  std::string base = config::environment("TMPDIR").value_or("/tmp");
  if (base.empty() || base.size() > 64) return "/tmp";
  return base;
}

// The pid in "ferry-mpirun.<pid>.XXXXXX", or 0.
pid_t owner_pid(std::string_view name) {
  if (!name.starts_with(kPrefix)) return 0;
  name.remove_prefix(kPrefix.size());
  size_t dot = name.find('.');
  if (dot == std::string_view::npos || dot == 0) return 0;
  pid_t pid = 0;
  for (char c : name.substr(0, dot)) {
    if (c < '0' || c > '9') return 0;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

}  // namespace

SessionDir::SessionDir() : base_(choose_base()) {
  std::string tail = std::string(kPrefix) + std::to_string(::getpid()) + ".XXXXXX";
  path_ = base_ + "/" + tail;
  if (::mkdtemp(path_.data()) != nullptr) return;
  int first_error = errno;
  if (base_ != "/tmp") {
    base_ = "/tmp";
    path_ = base_ + "/" + tail;
    if (::mkdtemp(path_.data()) != nullptr) return;
  }
  throw std::runtime_error("cannot create a temporary directory in " + base_ + ": " + strerror(first_error));
}

void SessionDir::remove() {
  if (removed_) return;
  removed_ = true;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void SessionDir::sweep_stale() const {
  DIR* dir = ::opendir(base_.c_str());
  if (dir == nullptr) return;
  uid_t me = ::geteuid();
  while (dirent* entry = ::readdir(dir)) {
    pid_t pid = owner_pid(entry->d_name);
    if (pid <= 0 || pid == ::getpid()) continue;
    // Alive (or not ours to ask): leave it. A reused pid only delays the
    // sweep of that directory.
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::string path = base_ + "/" + entry->d_name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != me) continue;
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
    FERRY_DEBUG(kLaunch, "removed %s, left by an mpirun that was killed", path.c_str());
  }
  ::closedir(dir);
}

}  // namespace ferry::launcher
