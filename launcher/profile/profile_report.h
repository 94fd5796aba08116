// FERRY_PROFILE's report (README "Profiling a job"): mpirun checks at start-up that it can write
// it, gives the ranks a directory for their counter files (common/profile_layout.h), and when the
// job has ended reads them and writes the HTML report and report.json beside it.
#pragma once

#include <string>
#include <vector>

#include "launcher/profile/profile_data.h"

namespace ferry::launcher::profile {

// FERRY_PROFILE's path, or "" when profiling is off.
std::string report_path();
// The JSON's path: the report's with .json for its .html (report.html -> report.json), else with
// .json added.
std::string json_path(const std::string& report);
// Attempt k's report under --max-restarts: report.html -> report.attempt<k>.html; the report of
// the job's spawned job k (its namespace <job's>.<k>): report.spawn<k>.html.
std::string attempt_path(const std::string& report, int attempt);
std::string spawn_path(const std::string& report, int id);

// Whether both files can be written (without leaving a file that was not there); else one line.
bool check_writable(const std::string& report, std::string* why);

// Reads the ranks' files in `dir` (profile_data.h's read_job) and writes both files, with one line
// on stderr either way; false if they could not be written. After restarts, `report` is the last
// attempt's and each earlier attempt k gets its own (attempt_path) beside it.
bool write_report(const std::string& report, const std::string& dir, const std::string& first_nspace, int size,
                  int exit_status);

// A file the job opened, summed over ranks.
struct FileSummary {
  std::string name;
  layout::File total{};
  std::vector<double> seconds_per_rank;
  std::vector<int> aggregators;  // ranks that aggregated two-phase collective accesses to it
};
std::vector<FileSummary> files(const Job& job);

std::string json(const Job& job);
std::string html(const Job& job);

}  // namespace ferry::launcher::profile
