#include "launcher/profile/profile_data.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/config.h"

namespace ferry::launcher::profile {
namespace {

std::string text_at(const char* p, size_t capacity) { return std::string(p, strnlen(p, capacity)); }

template <class T>
std::vector<T> array_at(const std::vector<char>& bytes, uint64_t offset, size_t n) {
  std::vector<T> out(n);
  std::memcpy(out.data(), bytes.data() + offset, n * sizeof(T));
  return out;
}

// A sampled function's time (common/profile_layout.h Call), or its wait: its `forced` calls as
// they were, and the sample (`measured` - `forced_measured` calls: timed calls, or those whose wait
// was measured) scaled to the calls that were not forced. Nothing sampled yet (all calls forced, or
// untimed ones before the first sample): the forced calls only, a lower bound. For a wait, the
// forced calls are those whose wait was counted as it was (forced_waits): a forced call whose wait
// was not measured, or was a weighted sample (counters.h note_wait), is one the sample stands for.
double estimate(uint64_t ticks, uint64_t forced_ticks, uint64_t measured, uint64_t forced_measured, uint64_t count,
                uint64_t forced) {
  // A reader may see a counter one update behind.
  forced_ticks = std::min(forced_ticks, ticks);
  forced_measured = std::min(forced_measured, measured);
  uint64_t sampled = measured - forced_measured;
  if (sampled == 0 || count <= forced) return double(forced_ticks);
  return double(forced_ticks) + double(ticks - forced_ticks) * double(count - forced) / double(sampled);
}

// One rank's file, checked against the layout its header promises; false if absent or torn.
bool read_rank(const std::string& path, int size, int64_t end_ns, Job& job, RankCounts& r) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(layout::Header)) return false;
  layout::Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (h.magic != layout::kMagic || h.version != layout::kVersion || h.size != size || h.num_calls == 0) return false;
  layout::Header expected = layout::layout(h.num_calls, h.size);
  if (expected.total_bytes != h.total_bytes || bytes.size() < h.total_bytes) return false;

  r.found = true;
  r.finalized = h.state == layout::kFinalized;
  r.restart_count = h.restart_count;
  r.host = text_at(h.host, sizeof h.host);
  r.binding = text_at(h.binding, sizeof h.binding);
  int64_t end = h.end_ns != 0 ? h.end_ns : end_ns;
  r.wall_s = h.start_ns != 0 && end > h.start_ns ? double(end - h.start_ns) * 1e-9 : 0;
  // Times to nanoseconds: each rank's clock has its own rate (src/profile/clock.h).
  double ns_per_tick = h.ticks_per_second > 0 ? 1e9 / h.ticks_per_second : 1;
  r.calls = array_at<layout::Call>(bytes, h.calls_offset, h.num_calls);
  // Under MPI_THREAD_MULTIPLE the threads but the counting one count apart (src/profile/counters.h).
  std::vector<layout::OtherThreadsCall> others =
      array_at<layout::OtherThreadsCall>(bytes, h.other_calls_offset, h.num_calls);
  for (uint32_t i = 0; i < h.num_calls; ++i) {
    r.calls[i].count += others[i].count;
    r.calls[i].bytes += others[i].bytes;
    for (int b = 0; b < layout::kBuckets; ++b) r.calls[i].sizes[b] += others[i].sizes[b];
  }
  for (layout::Call& c : r.calls) {
    // The calls that moved data are counted in their size buckets only (common/profile_layout.h).
    for (uint64_t n : c.sizes) c.count += n;
    uint64_t forced = std::min(c.forced, c.timed);
    c.ticks = uint64_t(estimate(c.ticks, c.forced_ticks, c.timed, forced, c.count, forced) * ns_per_tick);
    c.wait_ticks =
        uint64_t(estimate(c.wait_ticks, c.forced_wait_ticks, c.waits, c.forced_waits, c.count, c.forced_waits) *
                 ns_per_tick);
  }
  std::vector<layout::Peer> other_peers = array_at<layout::Peer>(bytes, h.other_peers_offset, size_t(size));
  for (const layout::Peer& p : array_at<layout::Peer>(bytes, h.peers_offset, size_t(size))) {
    const layout::Peer& other = other_peers[r.peer_bytes.size()];
    r.peer_bytes.push_back(p.bytes + other.bytes);
    r.peer_messages.push_back(p.messages + other.messages);
  }
  r.peer_rma_bytes = array_at<uint64_t>(bytes, h.peer_rma_bytes_offset, size_t(size));
  r.peer_rma_ops = array_at<uint64_t>(bytes, h.peer_rma_ops_offset, size_t(size));
  for (int p = 0; p < size; ++p)
    r.transports.push_back(
        text_at(bytes.data() + h.transports_offset + size_t(p) * layout::kTransportBytes, layout::kTransportBytes));
  r.files = array_at<layout::File>(bytes, h.files_offset, std::min<uint32_t>(h.num_files, layout::kMaxFiles));
  for (layout::File& f : r.files) f.ticks = uint64_t(double(f.ticks) * ns_per_tick);
  r.coll = array_at<uint64_t>(bytes, h.coll_offset, size_t(layout::kCollSlots) * layout::kCollSlots * layout::kBuckets);
  if (job.call_names.empty()) {
    for (uint32_t i = 0; i < h.num_calls; ++i)
      job.call_names.push_back(text_at(bytes.data() + h.names_offset + size_t(i) * layout::kNameBytes, layout::kNameBytes));
    for (int s = 0; s < 2 * layout::kCollSlots; ++s) {
      std::string name = text_at(bytes.data() + h.coll_names_offset + size_t(s) * layout::kNameBytes, layout::kNameBytes);
      (s < layout::kCollSlots ? job.coll_operations : job.coll_algorithms).push_back(name);
    }
  }
  return true;
}

// Attempt k's namespace (main.cc's plan_for): the first job's, then <first>.r<k>.
std::string attempt_nspace(const std::string& first, int attempt) {
  return attempt > 0 ? first + ".r" + std::to_string(attempt) : first;
}

}  // namespace

std::vector<int> attempts(const std::string& dir, const std::string& first) {
  // Spawned jobs' files (<first>.<id>) are not the job's.
  std::vector<int> out;
  std::error_code e;
  const std::string tail = ".rank.0";
  for (const auto& entry : std::filesystem::directory_iterator(dir, e)) {
    std::string name = entry.path().filename().string();
    if (name == first + tail) {
      out.push_back(0);
      continue;
    }
    if (name.size() <= first.size() + tail.size() || name.rfind(first + ".r", 0) != 0 ||
        name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    std::string k = name.substr(first.size() + 2, name.size() - tail.size() - first.size() - 2);
    if (!k.empty() && k.size() < 9 && k.find_first_not_of("0123456789") == std::string::npos) out.push_back(std::stoi(k));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Job read_job(const std::string& dir, const std::string& first_nspace, int size, int exit_status, int64_t end_ns,
             int attempt) {
  Job job;
  if (attempt == kLastAttempt) {
    std::vector<int> all = attempts(dir, first_nspace);
    attempt = all.empty() ? 0 : all.back();
  }
  job.attempt = attempt;
  std::string nspace = attempt_nspace(first_nspace, attempt);
  job.size = size;
  job.exit_status = exit_status;
  job.partial = exit_status != 0;
  job.ranks.resize(size_t(size));
  for (int r = 0; r < size; ++r) {
    RankCounts& rc = job.ranks[size_t(r)];
    rc.rank = r;
    if (!read_rank(dir + "/" + nspace + ".rank." + std::to_string(r), size, end_ns, job, rc) || !rc.finalized)
      job.partial = true;
  }
  // Ranks without a file still get rows of zeros, so every table has `size` columns.
  for (RankCounts& rc : job.ranks) {
    rc.calls.resize(job.call_names.size());
    rc.peer_bytes.resize(size_t(size));
    rc.peer_messages.resize(size_t(size));
    rc.peer_rma_bytes.resize(size_t(size));
    rc.peer_rma_ops.resize(size_t(size));
    rc.transports.resize(size_t(size));
    rc.coll.resize(size_t(layout::kCollSlots) * layout::kCollSlots * layout::kBuckets);
  }
  for (const config::Setting& s : config::all_settings()) {
    if (s.name == "FERRY_PROFILE_DIR") continue;
    std::string v = config::value(s.name);
    if (v != s.default_value) job.settings.emplace_back(std::string(s.name), v);
  }
  return job;
}

std::vector<std::string> jobs_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code e;
  const std::string tail = ".rank.0";
  for (const auto& entry : std::filesystem::directory_iterator(dir, e)) {
    std::string name = entry.path().filename().string();
    if (name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
      out.push_back(name.substr(0, name.size() - tail.size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

int job_size(const std::string& dir, const std::string& nspace) {
  std::ifstream in(dir + "/" + nspace + ".rank.0", std::ios::binary);
  layout::Header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h) || h.magic != layout::kMagic || h.version != layout::kVersion)
    return 0;
  return h.size;
}

Kind kind_of(const std::string& call) {
  static const char* const collectives[] = {
      "Barrier", "Bcast", "Gather", "Scatter", "Allgather", "Alltoall", "Reduce", "Allreduce", "Scan", "Exscan",
      "Neighbor_"};
  static const char* const receives[] = {"MPI_Recv", "MPI_Mrecv", "MPI_Wait", "MPI_Sendrecv", "MPI_Probe", "MPI_Mprobe"};
  if (call.rfind("MPI_File_", 0) == 0) return Kind::kIo;
  for (const char* r : receives)
    if (call.rfind(r, 0) == 0) return Kind::kBlockingReceive;
  // The nonblocking forms (MPI_Iallreduce) and the persistent ones (MPI_Allreduce_init) too.
  auto lower = [](std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::string bare = lower(call.substr(std::min<size_t>(4, call.size())));
  for (const char* c : collectives)
    if (bare.rfind(lower(c), 0) == 0 || (bare[0] == 'i' && bare.rfind(lower(c), 1) == 1)) return Kind::kCollective;
  for (const char* p : {"Send", "Bsend", "Ssend", "Rsend", "Recv", "Irecv", "Isend", "Start", "Test"})
    if (call.find(p) != std::string::npos) return Kind::kPointToPoint;
  return Kind::kOther;
}

Spread spread(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {values.front(), median, values.back()};
}

double seconds_in(const Job& job, const RankCounts& r, const Kind* kind) {
  uint64_t nanos = 0;
  for (size_t f = 0; f < r.calls.size(); ++f) {
    // MPI_Init and MPI_Finalize (or a session's) start and end the wall time; the time inside them is start-up and
    // tear-down, not the program's communication.
    const std::string& name = job.call_names[f];
    if (name == "MPI_Init" || name == "MPI_Init_thread" || name == "MPI_Finalize" || name == "MPI_Session_init" ||
        name == "MPI_Session_finalize")
      continue;
    if (kind == nullptr || kind_of(name) == *kind) nanos += r.calls[f].ticks;
  }
  // Sampled times are estimates (common/profile_layout.h): a rank that waits nearly all the time
  // could come out a little above its wall time, which it cannot have spent.
  double seconds = double(nanos) * 1e-9;
  return r.wall_s > 0 ? std::min(seconds, r.wall_s) : seconds;
}

double waiting_in(const Job& job, const RankCounts& r) {
  uint64_t nanos = 0;
  for (size_t f = 0; f < r.calls.size(); ++f) {
    const std::string& name = job.call_names[f];
    if (name == "MPI_Init" || name == "MPI_Init_thread" || name == "MPI_Finalize" || name == "MPI_Session_init" ||
        name == "MPI_Session_finalize")
      continue;
    nanos += r.calls[f].wait_ticks;
  }
  double seconds = double(nanos) * 1e-9;
  return r.wall_s > 0 ? std::min(seconds, r.wall_s) : seconds;
}

std::vector<int> called_functions(const Job& job) {
  std::vector<std::pair<uint64_t, int>> order;
  for (size_t f = 0; f < job.call_names.size(); ++f) {
    uint64_t count = 0, nanos = 0;
    for (const RankCounts& r : job.ranks) {
      count += r.calls[f].count;
      nanos += r.calls[f].ticks;
    }
    if (count > 0) order.emplace_back(nanos, int(f));
  }
  std::sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::vector<int> out;
  for (auto& o : order) out.push_back(o.second);
  return out;
}

CallTotals call_totals(const Job& job, int function) {
  CallTotals t;
  for (const RankCounts& r : job.ranks) {
    const layout::Call& c = r.calls[size_t(function)];
    t.count += c.count;
    t.timed += c.timed;
    t.nanos += c.ticks;
    t.wait_nanos += c.wait_ticks;
    t.bytes += c.bytes;
    for (int b = 0; b < layout::kBuckets; ++b) t.sizes[b] += c.sizes[b];
    t.count_per_rank.push_back(c.count);
    t.bytes_per_rank.push_back(c.bytes);
    t.seconds_per_rank.push_back(double(c.ticks) * 1e-9);
    t.wait_seconds_per_rank.push_back(double(c.wait_ticks) * 1e-9);
  }
  return t;
}

}  // namespace ferry::launcher::profile
