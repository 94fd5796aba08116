#include "launcher/profile/profile_report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

bool write_report(const std::string& report, const std::string& dir, const std::string& first_nspace, int size,
                  int exit_status) {
  timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  Job job = read_job(dir, first_nspace, size, exit_status, int64_t(now.tv_sec) * 1000000000 + now.tv_nsec);
  if (!write_file(json_path(report), json(job)) || !write_file(report, html(job))) {
    std::fprintf(stderr, "%s: FERRY_PROFILE: cannot write %s: %s\n", program_invocation_short_name, report.c_str(),
                 std::strerror(errno));
    return false;
  }
  std::fprintf(stderr, "%s: FERRY_PROFILE: %sreport written to %s and %s\n", program_invocation_short_name,
               job.partial ? "partial " : "", report.c_str(), json_path(report).c_str());
  return true;
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
        out.push_back({name, {}, std::vector<double>(size_t(job.size), 0.0)});
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
      for (int b = 0; b < layout::kBuckets; ++b) s->total.sizes[b] += f.sizes[b];
      s->seconds_per_rank[size_t(r.rank)] += double(f.ticks) * 1e-9;
    }
  return out;
}

}  // namespace ferry::launcher::profile
