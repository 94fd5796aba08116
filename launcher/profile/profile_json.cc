// report.json: the report's numbers for scripts, written from profile_data.h. Every array that is
// per rank has the job's size entries, in rank order; times are seconds, sizes bytes; `sizes`
// arrays are the log2 buckets of common/profile_layout.h (entry 0: 0 bytes, entry b: [2^(b-1), 2^b)).
#include "launcher/profile/profile_report.h"

#include <cstdio>
#include <sstream>

namespace ferry::launcher::profile {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <class T, class F>
std::string list(const std::vector<T>& items, F text) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + text(items[i]);
  return out + "]";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
std::string number(uint64_t v) { return std::to_string(v); }

std::string sizes(const uint64_t* buckets) {
  std::vector<uint64_t> v(buckets, buckets + layout::kBuckets);
  return list(v, [](uint64_t x) { return number(x); });
}

}  // namespace

std::string json(const Job& job) {
  std::ostringstream o;
  o << "{\n\"format\": \"ferry-profile-1\",\n";
  o << "\"partial\": " << (job.partial ? "true" : "false") << ",\n";
  o << "\"exit_status\": " << (job.restarted ? std::string("null") : std::to_string(job.exit_status)) << ",\n";
  o << "\"attempt\": " << job.attempt << ",\n";
  o << "\"restarted\": " << (job.restarted ? "true" : "false") << ",\n";
  o << "\"spawned_id\": " << job.spawned_id << ",\n";
  o << "\"other_reports\": " << list(job.other_reports, [](const std::string& x) { return quoted(x); }) << ",\n";
  o << "\"ranks\": " << job.size << ",\n";
  o << "\"settings\": {";
  for (size_t i = 0; i < job.settings.size(); ++i)
    o << (i ? ", " : "") << quoted(job.settings[i].first) << ": " << quoted(job.settings[i].second);
  o << "},\n";

  o << "\"rank_facts\": [\n";
  for (const RankCounts& r : job.ranks) {
    Kind coll = Kind::kCollective, recv = Kind::kBlockingReceive, io = Kind::kIo;
    o << (r.rank ? ",\n" : "") << " {\"rank\": " << r.rank << ", \"host\": " << quoted(r.host)
      << ", \"binding\": " << quoted(r.binding) << ", \"counted\": " << (r.found ? "true" : "false")
      << ", \"finalized\": " << (r.finalized ? "true" : "false") << ", \"wall_s\": " << number(r.wall_s)
      << ", \"mpi_s\": " << number(seconds_in(job, r, nullptr))
      << ", \"collective_s\": " << number(seconds_in(job, r, &coll))
      << ", \"blocking_receive_s\": " << number(seconds_in(job, r, &recv))
      << ", \"io_s\": " << number(seconds_in(job, r, &io))
      << ", \"late_wait_s\": " << number(waiting_in(job, r)) << "}";
  }
  o << "\n],\n";

  o << "\"calls\": [\n";
  bool first = true;
  for (int f : called_functions(job)) {
    CallTotals t = call_totals(job, f);
    Spread s = spread(t.seconds_per_rank);
    o << (first ? "" : ",\n") << " {\"name\": " << quoted(job.call_names[size_t(f)]) << ", \"count\": " << t.count
      << ", \"timed\": " << t.timed << ", \"time_s\": " << number(double(t.nanos) * 1e-9) << ", \"bytes\": " << t.bytes
      << ", \"time_s_min\": " << number(s.min) << ", \"time_s_median\": " << number(s.median)
      << ", \"time_s_max\": " << number(s.max) << ", \"wait_s\": " << number(double(t.wait_nanos) * 1e-9)
      << ",\n  \"count_per_rank\": " << list(t.count_per_rank, [](uint64_t x) { return number(x); })
      << ", \"bytes_per_rank\": " << list(t.bytes_per_rank, [](uint64_t x) { return number(x); })
      << ", \"time_s_per_rank\": " << list(t.seconds_per_rank, [](double x) { return number(x); })
      << ", \"wait_s_per_rank\": " << list(t.wait_seconds_per_rank, [](double x) { return number(x); })
      << ",\n  \"sizes\": " << sizes(t.sizes) << "}";
    first = false;
  }
  o << "\n],\n";

  auto matrix = [&](auto field) {
    std::string out = "[";
    for (const RankCounts& r : job.ranks)
      out += std::string(r.rank ? ",\n  " : "\n  ") + list(r.*field, [](uint64_t x) { return number(x); });
    return out + "]";
  };
  o << "\"p2p_bytes\": " << matrix(&RankCounts::peer_bytes) << ",\n";
  o << "\"p2p_messages\": " << matrix(&RankCounts::peer_messages) << ",\n";
  o << "\"rma_bytes\": " << matrix(&RankCounts::peer_rma_bytes) << ",\n";
  o << "\"rma_operations\": " << matrix(&RankCounts::peer_rma_ops) << ",\n";
  o << "\"transports\": [";
  for (const RankCounts& r : job.ranks) o << (r.rank ? ",\n  " : "\n  ") << list(r.transports, quoted);
  o << "],\n";

  o << "\"collective_choices\": [";
  first = true;
  for (int op = 0; op < layout::kCollSlots; ++op)
    for (int a = 0; a < layout::kCollSlots; ++a) {
      uint64_t buckets[layout::kBuckets] = {};
      uint64_t calls = 0;
      for (const RankCounts& r : job.ranks)
        for (int b = 0; b < layout::kBuckets; ++b) {
          uint64_t n = r.coll[(size_t(op) * layout::kCollSlots + size_t(a)) * layout::kBuckets + size_t(b)];
          buckets[b] += n;
          calls += n;
        }
      if (calls == 0) continue;
      o << (first ? "\n" : ",\n") << " {\"operation\": " << quoted(job.coll_operations[size_t(op)])
        << ", \"algorithm\": " << quoted(job.coll_algorithms[size_t(a)]) << ", \"calls\": " << calls
        << ", \"sizes\": " << sizes(buckets) << "}";
      first = false;
    }
  o << "\n],\n";

  o << "\"io\": [";
  first = true;
  for (const FileSummary& f : files(job)) {
    o << (first ? "\n" : ",\n") << " {\"file\": " << quoted(f.name) << ", \"opens\": " << f.total.opens
      << ", \"bytes_read\": " << f.total.bytes_read << ", \"bytes_written\": " << f.total.bytes_written
      << ", \"reads\": " << f.total.reads << ", \"writes\": " << f.total.writes
      << ", \"collective_accesses\": " << f.total.collective_accesses
      << ", \"independent_accesses\": " << f.total.independent_accesses
      << ", \"time_s\": " << number(double(f.total.ticks) * 1e-9) << ", \"sizes\": " << sizes(f.total.sizes)
      << ",\n  \"aggregators\": " << list(f.aggregators, [](int x) { return std::to_string(x); })
      << ", \"aggregated_accesses\": " << f.total.aggregations
      << ", \"aggregated_bytes\": " << f.total.aggregated_bytes
      << ",\n  \"time_s_per_rank\": " << list(f.seconds_per_rank, [](double x) { return number(x); }) << "}";
    first = false;
  }
  o << "\n]\n}\n";
  return o.str();
}

}  // namespace ferry::launcher::profile
