#include "profile/report_without_mpirun.h"

#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "common/config.h"
#include "pmi/pmix_client.h"

extern char** environ;

namespace ferry::profile {
namespace {

bool alone = false;  // rank 0 of a job that mpirun did not start, counting into a file
std::string counter_dir, job_nspace;

// ferry_profile_report beside this libmpi: <prefix>/lib/libmpi.so.12 -> <prefix>/bin/.
std::string tool_path() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&write_report_without_mpirun), &info) == 0 || info.dli_fname == nullptr)
    return "";
  std::string lib = info.dli_fname;
  size_t slash = lib.rfind('/');
  if (slash == std::string::npos) return "";
  std::string libdir = lib.substr(0, slash);
  size_t up = libdir.rfind('/');
  return (up == std::string::npos ? std::string(".") : libdir.substr(0, up)) + "/bin/ferry_profile_report";
}

}  // namespace

void note_launcher(const std::string& dir, const std::string& nspace, int rank) {
  alone = rank == 0 && !pmi::job_string("ferry.job.secret").has_value();
  counter_dir = dir;
  job_nspace = nspace;
}

void write_report_without_mpirun() {
  if (!alone) return;
  alone = false;  // once, even if MPI_Finalize's wrapper runs again
  const std::string report = config::value("FERRY_PROFILE");
  const std::string tool = tool_path();
  if (tool.empty() || ::access(tool.c_str(), X_OK) != 0) {
    std::fprintf(stderr,
                 "ferry: FERRY_PROFILE: no report written: %s is not there; run ferry_profile_report %s %s\n",
                 tool.empty() ? "ferry_profile_report" : tool.c_str(), counter_dir.c_str(), report.c_str());
    return;
  }
  const std::string wait = std::to_string(kWaitSeconds);
  const char* argv[] = {tool.c_str(), "--wait", wait.c_str(), counter_dir.c_str(), report.c_str(),
                        job_nspace.c_str(), nullptr};
  pid_t pid = 0;
  if (int e = ::posix_spawn(&pid, tool.c_str(), nullptr, nullptr, const_cast<char* const*>(argv), environ); e != 0) {
    std::fprintf(stderr, "ferry: FERRY_PROFILE: no report written: cannot run %s\n", tool.c_str());
    return;
  }
  // The tool says where it wrote the report, or what went wrong.
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace ferry::profile
