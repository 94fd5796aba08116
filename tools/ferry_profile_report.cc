// ferry_profile_report: FERRY_PROFILE's report for a job that mpirun did not start (srun, or any
// launcher with a PMIx server of its own), from the counter files its ranks left in
// FERRY_PROFILE_DIR (a directory every rank can write: on several hosts, a shared one). mpirun
// writes the same report by itself (launcher/profile/profile_report.h); this is the same code run by hand.
//
//   ferry_profile_report [--wait SECONDS] DIR REPORT.html [JOB]
//
// JOB is the job's PMIx namespace, needed only when DIR holds the files of several jobs (the tool
// lists them). The job is reported partial when a rank did not reach the end of MPI_Finalize.
// --wait: first wait, at most SECONDS, until every rank has (what rank 0 of a job without mpirun
// runs at the end of its MPI_Finalize, src/profile/report_without_mpirun.h).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <string>
#include <vector>

#include "launcher/profile/profile_data.h"
#include "launcher/profile/profile_report.h"

namespace {

// Until every rank's file says it finished MPI_Finalize, or `seconds` have passed.
void wait_for_ranks(const std::string& dir, const std::string& job, int size, double seconds) {
  using namespace ferry::launcher::profile;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    Job counted = read_job(dir, job, size, 0, 0, 0);
    bool all = true;
    for (const RankCounts& r : counted.ranks) all = all && r.found && r.finalized;
    if (all) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ferry::launcher::profile;
  double wait_s = 0;
  if (argc >= 3 && std::string(argv[1]) == "--wait") {
    wait_s = std::atof(argv[2]);
    argc -= 2;
    argv += 2;
  }
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: ferry_profile_report [--wait SECONDS] DIR REPORT.html [JOB]\n");
    return 2;
  }
  std::string dir = argv[1], report = argv[2];
  std::vector<std::string> jobs = jobs_in(dir);
  std::string job = argc == 4 ? argv[3] : jobs.size() == 1 ? jobs[0] : "";
  if (job.empty()) {
    std::fprintf(stderr, "ferry_profile_report: %s holds %s; name the job:", dir.c_str(),
                 jobs.empty() ? "no counter file (<job>.rank.0)" : "the files of several jobs");
    for (const std::string& j : jobs) std::fprintf(stderr, " %s", j.c_str());
    std::fprintf(stderr, "\n");
    return 1;
  }
  int size = job_size(dir, job);
  if (size <= 0) {
    std::fprintf(stderr, "ferry_profile_report: %s/%s.rank.0 is not a FERRY_PROFILE counter file\n", dir.c_str(),
                 job.c_str());
    return 1;
  }
  if (std::string why; !check_writable(report, &why)) {
    std::fprintf(stderr, "ferry_profile_report: %s\n", why.c_str());
    return 1;
  }
  wait_for_ranks(dir, job, size, wait_s);
  return write_report(report, dir, job, size, 0) ? 0 : 1;
}
