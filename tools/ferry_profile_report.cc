// ferry_profile_report: FERRY_PROFILE's report for a job that mpirun did not start (srun, or any
// launcher with a PMIx server of its own), from the counter files its ranks left in
// FERRY_PROFILE_DIR (a directory every rank can write: on several hosts, a shared one). mpirun
// writes the same report by itself (launcher/profile/profile_report.h); this is the same code run by hand.
//
//   ferry_profile_report DIR REPORT.html [JOB]
//
// JOB is the job's PMIx namespace, needed only when DIR holds the files of several jobs (the tool
// lists them). The job is reported partial when a rank did not reach the end of MPI_Finalize.
#include <cstdio>
#include <string>
#include <vector>

#include "launcher/profile/profile_data.h"
#include "launcher/profile/profile_report.h"

int main(int argc, char** argv) {
  using namespace ferry::launcher::profile;
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: ferry_profile_report DIR REPORT.html [JOB]\n");
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
  return write_report(report, dir, job, size, 0) ? 0 : 1;
}
