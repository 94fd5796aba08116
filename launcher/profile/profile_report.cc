#include "launcher/profile/profile_report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "common/config.h"

namespace ferry::launcher::profile {
namespace {

// Opens `path` for writing as the end of the job will; a file this made is removed again.
bool try_open(const std::string& path, std::string* why) {
  struct stat st;
  bool existed = ::stat(path.c_str(), &st) == 0;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *why = "FERRY_PROFILE: cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
  return true;
}

// Writes beside and renames, so that a reader never sees half a report.
bool write_file(const std::string& path, const std::string& text) {
  std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return false;
  }
  return ::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace

std::string report_path() { return config::value("FERRY_PROFILE"); }

std::string json_path(const std::string& report) {
  const std::string ext = ".html";
  if (report.size() > ext.size() && report.compare(report.size() - ext.size(), ext.size(), ext) == 0)
    return report.substr(0, report.size() - ext.size()) + ".json";
  return report + ".json";
}

bool check_writable(const std::string& report, std::string* why) {
  return try_open(report, why) && try_open(json_path(report), why);
}

namespace {

// report.html -> report<tag>.html; another name gets the tag at its end.
std::string tagged(const std::string& report, const std::string& tag) {
  const std::string ext = ".html";
  if (report.size() > ext.size() && report.compare(report.size() - ext.size(), ext.size(), ext) == 0)
    return report.substr(0, report.size() - ext.size()) + tag + ext;
  return report + tag;
}

}  // namespace

std::string attempt_path(const std::string& report, int attempt) {
  return tagged(report, ".attempt" + std::to_string(attempt));
}

std::string spawn_path(const std::string& report, int id) { return tagged(report, ".spawn" + std::to_string(id)); }

namespace {

bool write_both(const std::string& report, const Job& job) {
  if (!write_file(json_path(report), json(job)) || !write_file(report, html(job))) {
    std::fprintf(stderr, "%s: FERRY_PROFILE: cannot write %s: %s\n", program_invocation_short_name, report.c_str(),
                 std::strerror(errno));
    return false;
  }
  return true;
}

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

bool write_report(const std::string& report, const std::string& dir, const std::string& first_nspace, int size,
                  int exit_status) {
  timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  int64_t now_ns = int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
  // Under --max-restarts every attempt's ranks counted into files of their own namespace: the last
  // attempt is the report, each earlier one (which failed) a report of its own beside it.
  std::vector<int> all = attempts(dir, first_nspace);
  // No rank 0 left a file (a program that never called MPI_Init, or died before): a partial report
  // of the first attempt whose ranks are all missing, rather than none.
  if (all.empty()) all.push_back(0);
  int last = all.back();
  std::vector<std::string> names;
  for (int a : all) names.push_back(file_name(a == last ? report : attempt_path(report, a)));
  bool written = true;
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    Job earlier = read_job(dir, first_nspace, size, 1, now_ns, all[i]);
    earlier.restarted = earlier.partial = true;
    for (size_t j = 0; j < all.size(); ++j)
      if (j != i) earlier.other_reports.push_back(names[j]);
    written = write_both(attempt_path(report, all[i]), earlier) && written;
  }
  Job job = read_job(dir, first_nspace, size, exit_status, now_ns, last);
  names.pop_back();
  job.other_reports = names;
  // The jobs the last attempt spawned (namespaces <its namespace>.<k>, pmix_host.cc), one report
  // each, linked from the job's.
  const std::string parent = last > 0 ? first_nspace + ".r" + std::to_string(last) : first_nspace;
  std::vector<std::pair<int, std::string>> spawned;
  for (const std::string& nspace : jobs_in(dir)) {
    if (nspace.size() <= parent.size() + 1 || nspace.compare(0, parent.size() + 1, parent + ".") != 0) continue;
    std::string id = nspace.substr(parent.size() + 1);
    if (id.size() < 9 && id.find_first_not_of("0123456789") == std::string::npos)
      spawned.emplace_back(std::stoi(id), nspace);
  }
  std::sort(spawned.begin(), spawned.end());
  for (auto& [id, nspace] : spawned) {
    Job child = read_job(dir, nspace, job_size(dir, nspace), 0, now_ns, 0);
    child.spawned_id = id;
    child.other_reports.push_back(file_name(report));
    written = write_both(spawn_path(report, id), child) && written;
    job.other_reports.push_back(file_name(spawn_path(report, id)));
  }
  if (!write_both(report, job)) return false;
  std::fprintf(stderr, "%s: FERRY_PROFILE: %sreport written to %s and %s", program_invocation_short_name,
               job.partial ? "partial " : "", report.c_str(), json_path(report).c_str());
  if (all.size() > 1)
    std::fprintf(stderr, " (attempt %d; the %zu earlier attempts' beside it, %s...)", last, all.size() - 1,
                 attempt_path(report, all[0]).c_str());
  if (!spawned.empty())
    std::fprintf(stderr, " (and the %zu jobs it spawned: %s...)", spawned.size(),
                 spawn_path(report, spawned[0].first).c_str());
  std::fprintf(stderr, "\n");
  return written;
}

std::vector<FileSummary> files(const Job& job) {
  std::vector<FileSummary> out;
  for (const RankCounts& r : job.ranks)
    for (const layout::File& f : r.files) {
      std::string name(f.name, strnlen(f.name, sizeof f.name));
      FileSummary* s = nullptr;
      for (FileSummary& o : out)
        if (o.name == name) s = &o;
      if (s == nullptr) {
        out.push_back({name, {}, std::vector<double>(size_t(job.size), 0.0), {}});
        s = &out.back();
      }
      s->total.opens += f.opens;
      s->total.bytes_read += f.bytes_read;
      s->total.bytes_written += f.bytes_written;
      s->total.reads += f.reads;
      s->total.writes += f.writes;
      s->total.collective_accesses += f.collective_accesses;
      s->total.independent_accesses += f.independent_accesses;
      s->total.ticks += f.ticks;
      s->total.aggregations += f.aggregations;
      s->total.aggregated_bytes += f.aggregated_bytes;
      if (f.aggregations > 0 && std::find(s->aggregators.begin(), s->aggregators.end(), r.rank) == s->aggregators.end())
        s->aggregators.push_back(r.rank);
      for (int b = 0; b < layout::kBuckets; ++b) s->total.sizes[b] += f.sizes[b];
      s->seconds_per_rank[size_t(r.rank)] += double(f.ticks) * 1e-9;
    }
  return out;
}

}  // namespace ferry::launcher::profile
