// The HTML report: one self-contained file (styles, charts as inline SVG, a few lines of inline
// script that sort the tables), so that it opens offline and can be mailed or attached to an issue.
// Nothing is fetched from anywhere. Written from profile_data.h only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "launcher/profile/profile_report.h"

namespace ferry::launcher::profile {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return fmt(u == 0 ? "%.0f" : "%.1f", b) + " " + units[u];
}

std::string seconds_text(double s) {
  if (s == 0) return "0";
  if (s < 1e-3) return fmt("%.1f", s * 1e6) + " µs";
  if (s < 1) return fmt("%.2f", s * 1e3) + " ms";
  return fmt("%.3f", s) + " s";
}

// The lower bound of size bucket b (common/profile_layout.h): 0, 1, 2, 4, ..., 512, 1K, ..., 1M, ...
std::string bucket_text(int b) {
  if (b == 0) return "0";
  uint64_t low = uint64_t(1) << (b - 1);
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (low >= 1024 && u < 4) {
    low /= 1024;
    ++u;
  }
  return std::to_string(low) + units[u];
}

// A cell whose sort key is a number, shown as `text`.
std::string cell(double key, const std::string& text) {
  return "<td data-v=\"" + fmt("%.12g", key) + "\">" + escape(text) + "</td>";
}
std::string cell(const std::string& text) { return "<td>" + escape(text) + "</td>"; }

// A color from white (0) to dark blue (1), for heat maps.
std::string shade(double x) {
  x = std::clamp(x, 0.0, 1.0);
  int r = int(247 - x * (247 - 8)), g = int(251 - x * (251 - 48)), b = int(255 - x * (255 - 107));
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

// Horizontal bars per rank, stacked from `series` (each: name, color, one value per rank), scaled
// to `full` (a value of `full` fills the width).
struct Series {
  std::string name, color;
  std::vector<double> values;
};
std::string stacked_bars(const std::vector<Series>& series, double full, const std::string& unit) {
  size_t n = series.empty() ? 0 : series[0].values.size();
  const int bar = n > 64 ? 6 : 16, gap = 3, left = 70, width = 560;
  int height = int(n) * (bar + gap) + 40;
  std::ostringstream o;
  o << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 90 << "\" height=\""
    << height << "\" role=\"img\">";
  for (size_t i = 0; i < n; ++i) {
    int y = int(i) * (bar + gap);
    if (bar >= 10 || i % 8 == 0)
      o << "<text x=\"" << left - 6 << "\" y=\"" << y + bar - 3 << "\" text-anchor=\"end\">rank " << i << "</text>";
    double x = 0, total = 0;
    for (const Series& s : series) {
      double w = full > 0 ? s.values[i] / full * width : 0;
      o << "<rect x=\"" << fmt("%.1f", left + x) << "\" y=\"" << y << "\" width=\"" << fmt("%.1f", w)
        << "\" height=\"" << bar << "\" fill=\"" << s.color << "\"><title>rank " << i << ", " << escape(s.name) << ": "
        << fmt("%.3g", s.values[i]) << unit << "</title></rect>";
      x += w;
      total += s.values[i];
    }
    if (bar >= 10)
      o << "<text x=\"" << fmt("%.1f", left + x + 4) << "\" y=\"" << y + bar - 3 << "\">" << fmt("%.1f", total) << unit
        << "</text>";
  }
  int y = int(n) * (bar + gap) + 14, x = left;
  for (const Series& s : series) {
    o << "<rect x=\"" << x << "\" y=\"" << y - 10 << "\" width=\"12\" height=\"12\" fill=\"" << s.color << "\"/>"
      << "<text x=\"" << x + 16 << "\" y=\"" << y << "\">" << escape(s.name) << "</text>";
    x += 30 + int(s.name.size()) * 7;
  }
  o << "</svg>";
  return o.str();
}

// A rank-by-rank heat map of `matrix[sender][receiver]`.
// "ranks 0 4 (12.0 MiB)": who aggregated the file's two-phase accesses and what they moved.
std::string aggregator_text(const FileSummary& f) {
  if (f.aggregators.empty()) return "none";
  std::string ranks;
  for (int r : f.aggregators) ranks += (ranks.empty() ? "" : " ") + std::to_string(r);
  return (f.aggregators.size() == 1 ? "rank " : "ranks ") + ranks + " (" +
         bytes_text(double(f.total.aggregated_bytes)) + ")";
}

std::string heat_map(const Job& job, std::vector<uint64_t> RankCounts::*field, bool as_bytes) {
  int n = job.size;
  int c = std::max(4, std::min(32, 480 / std::max(1, n)));
  const int left = 70, top = 30;
  uint64_t peak = 0;
  for (const RankCounts& r : job.ranks)
    for (uint64_t v : r.*field) peak = std::max(peak, v);
  std::ostringstream o;
  o << "<svg class=\"chart heat\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << std::max(left + n * c + 20, 340)
    << "\" height=\""
    << top + n * c + 30 << "\" role=\"img\">";
  o << "<text x=\"" << left << "\" y=\"12\">receiver →</text><text x=\"2\" y=\"" << top - 4 << "\">sender ↓</text>";
  int label_every = std::max(1, 16 / c);
  for (int i = 0; i < n; i += label_every) {
    o << "<text x=\"" << left + i * c + c / 2 << "\" y=\"" << top - 4 << "\" text-anchor=\"middle\">" << i << "</text>";
    o << "<text x=\"" << left - 4 << "\" y=\"" << top + i * c + c / 2 + 4 << "\" text-anchor=\"end\">" << i << "</text>";
  }
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      uint64_t v = (job.ranks[size_t(s)].*field)[size_t(d)];
      // Square root: a few heavy pairs would otherwise wash out every other one.
      double x = peak > 0 ? std::sqrt(double(v) / double(peak)) : 0;
      o << "<rect x=\"" << left + d * c << "\" y=\"" << top + s * c << "\" width=\"" << c << "\" height=\"" << c
        << "\" fill=\"" << shade(x) << "\" stroke=\"#ddd\" stroke-width=\"0.5\"><title>" << s << " → " << d << ": "
        << (as_bytes ? bytes_text(double(v)) : std::to_string(v) + " messages") << "</title></rect>";
    }
  o << "<text x=\"" << left << "\" y=\"" << top + n * c + 18 << "\">darkest: "
    << (as_bytes ? bytes_text(double(peak)) : std::to_string(peak) + " messages") << " (color ∝ √value)</text>";
  o << "</svg>";
  return o.str();
}

// Vertical bars of a size histogram (common/profile_layout.h's buckets), empty buckets at the ends cut.
std::string histogram(const uint64_t* buckets) {
  int first = layout::kBuckets, last = -1;
  uint64_t peak = 0;
  for (int b = 0; b < layout::kBuckets; ++b)
    if (buckets[b] > 0) {
      first = std::min(first, b);
      last = b;
      peak = std::max(peak, buckets[b]);
    }
  if (last < 0) return "";
  const int w = 26, h = 80, top = 14;
  int n = last - first + 1;
  std::ostringstream o;
  o << "<svg class=\"chart hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << n * w + 10 << "\" height=\""
    << h + top + 20 << "\" role=\"img\">";
  for (int b = first; b <= last; ++b) {
    double bh = double(buckets[b]) / double(peak) * h;
    int x = 5 + (b - first) * w;
    o << "<rect x=\"" << x + 2 << "\" y=\"" << fmt("%.1f", top + h - bh) << "\" width=\"" << w - 4 << "\" height=\""
      << fmt("%.1f", bh) << "\" fill=\"#4e79a7\"><title>" << bucket_text(b) << "…: " << buckets[b] << "</title></rect>"
      << "<text x=\"" << x + w / 2 << "\" y=\"" << top + h + 14 << "\" text-anchor=\"middle\">" << bucket_text(b)
      << "</text>";
    if (buckets[b] > 0)
      o << "<text x=\"" << x + w / 2 << "\" y=\"" << fmt("%.1f", top + h - bh - 3) << "\" text-anchor=\"middle\">"
        << buckets[b] << "</text>";
  }
  o << "</svg>";
  return o.str();
}

const char* kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
td:first-child,th:first-child{text-align:left}th{background:#f3f3f3;cursor:pointer;user-select:none}
th.sorted-up::after{content:" ▲"}th.sorted-down::after{content:" ▼"}
.partial{background:#fff3cd;border:1px solid #e0b000;padding:8px 12px}
svg.chart text{font:11px sans-serif;fill:#333}.note{color:#666;font-size:12px}
.hists{display:flex;flex-wrap:wrap;gap:16px}.hists div{border:1px solid #eee;padding:4px}
)";

// Click a header to sort its table by that column (numbers by data-v), again to reverse.
const char* kScript = R"(
document.querySelectorAll('table.sortable th').forEach(function(th, col) {
  th.addEventListener('click', function() {
    var table = th.closest('table'), body = table.tBodies[0];
    var up = !th.classList.contains('sorted-up');
    table.querySelectorAll('th').forEach(function(h) { h.classList.remove('sorted-up', 'sorted-down'); });
    th.classList.add(up ? 'sorted-up' : 'sorted-down');
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function(a, b) {
      var x = a.cells[index], y = b.cells[index];
      var u = x.dataset.v !== undefined ? parseFloat(x.dataset.v) : x.textContent;
      var v = y.dataset.v !== undefined ? parseFloat(y.dataset.v) : y.textContent;
      var r = (typeof u === 'number') ? u - v : String(u).localeCompare(String(v));
      return up ? r : -r;
    });
    rows.forEach(function(r) { body.appendChild(r); });
  });
});
)";

std::string table_head(std::initializer_list<const char*> names) {
  std::string out = "<table class=\"sortable\"><thead><tr>";
  for (const char* n : names) out += std::string("<th>") + n + "</th>";
  return out + "</tr></thead><tbody>";
}

}  // namespace

std::string html(const Job& job) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Ferry profile: " << job.size
    << " ranks</title><style>" << kStyle << "</style></head><body>\n";
  o << "<h1>Ferry profile: " << job.size << " ranks</h1>\n";
  if (job.spawned_id > 0)
    o << "<p>A job spawned by the one of the report linked below (MPI_Comm_spawn; its namespace's number "
      << job.spawned_id << ").</p>\n";
  if (job.restarted)
    o << "<p class=\"partial\"><b>Partial report of attempt " << job.attempt
      << ".</b> This attempt failed and mpirun restarted the job (--max-restarts): what its ranks counted until they "
         "stopped is shown.</p>\n";
  else if (job.partial)
    o << "<p class=\"partial\"><b>Partial report.</b> The job ended with status " << job.exit_status
      << " or some rank did not reach the end of MPI_Finalize: what those ranks counted until they stopped is shown.</p>\n";
  if (!job.other_reports.empty()) {
    o << "<p>Other attempts of this job (--max-restarts):";
    for (const std::string& r : job.other_reports) o << " <a href=\"" << escape(r) << "\">" << escape(r) << "</a>";
    o << "</p>\n";
  }

  // The job's facts.
  std::map<std::string, std::vector<int>> hosts;
  for (const RankCounts& r : job.ranks)
    if (r.found) hosts[r.host].push_back(r.rank);
  o << "<h2>Job</h2><table><tbody><tr><td>ranks</td><td>" << job.size << "</td></tr><tr><td>hosts</td><td>"
    << hosts.size() << "</td></tr><tr><td>exit status</td><td>"
    << (job.restarted ? std::string("failed, restarted") : std::to_string(job.exit_status)) << "</td></tr>";
  if (job.attempt > 0) o << "<tr><td>attempt (FERRY_RESTART_COUNT)</td><td>" << job.attempt << "</td></tr>";
  o << "</tbody></table>\n";
  o << table_head({"host", "ranks", "ranks on it"});
  for (auto& [host, ranks] : hosts) {
    std::string list;
    for (int r : ranks) list += (list.empty() ? "" : " ") + std::to_string(r);
    o << "<tr>" << cell(host) << cell(double(ranks.size()), std::to_string(ranks.size())) << cell(list) << "</tr>";
  }
  o << "</tbody></table>\n";
  if (!job.settings.empty()) {
    o << "<p>Ferry settings that differ from their defaults:</p><table><tbody>";
    for (auto& [name, value] : job.settings) o << "<tr>" << cell(name) << cell(value) << "</tr>";
    o << "</tbody></table>\n";
  }

  // Where the time went, per rank.
  Kind coll = Kind::kCollective, recv = Kind::kBlockingReceive, file = Kind::kIo;
  Series s_coll{"collectives", "#e15759", {}}, s_recv{"blocking receives and waits", "#f28e2b", {}},
      s_io{"MPI-IO", "#59a14f", {}}, s_other{"other MPI calls", "#4e79a7", {}};
  for (const RankCounts& r : job.ranks) {
    double wall = r.wall_s > 0 ? r.wall_s : 1;
    double all = seconds_in(job, r, nullptr), c = seconds_in(job, r, &coll), w = seconds_in(job, r, &recv),
           io = seconds_in(job, r, &file);
    s_coll.values.push_back(100 * c / wall);
    s_recv.values.push_back(100 * w / wall);
    s_io.values.push_back(100 * io / wall);
    s_other.values.push_back(100 * std::max(0.0, all - c - w - io) / wall);
  }
  o << "<h2>Share of wall-clock time inside MPI, per rank</h2>"
    << "<p class=\"note\">From MPI_Init's return to MPI_Finalize (MPI_Init and MPI_Finalize themselves left out). "
       "Time in collectives and blocking receives is mostly waiting for late partners: uneven bars are load "
       "imbalance.</p>"
    << stacked_bars({s_coll, s_recv, s_io, s_other}, 100, "%") << "\n";
  Series s_wait{"waiting for late partners", "#b07aa1", {}};
  for (const RankCounts& r : job.ranks) s_wait.values.push_back(100 * waiting_in(job, r) / (r.wall_s > 0 ? r.wall_s : 1));
  o << "<h2>Waiting for late partners, per rank</h2>"
    << "<p class=\"note\">Of the time above, the share a rank spent waiting for another to arrive: in a blocking "
       "collective, from its entry until every rank had entered (a barrier the profile runs first); in MPI_Recv and "
       "MPI_Wait, until its message arrived; all of MPI_Barrier and MPI_Probe. The rank others wait for has the "
       "shortest bar.</p>"
    << stacked_bars({s_wait}, 100, "%") << "\n";

  // Per call.
  o << "<h2>MPI calls</h2><p class=\"note\">Bytes: count × datatype size of the call's (send) buffer as passed. "
       "Min/median/max: each rank's total time in the call. "
       "Times marked ~ are estimates: a function whose calls are short (under 5 µs on average) is timed on "
       "one call in 256 at random, as reading the clock around every call would cost more than 3% of them.</p>"
    << table_head({"call", "calls", "total time", "waiting", "mean time", "bytes", "min rank", "median rank",
                   "max rank"});
  std::vector<int> called = called_functions(job);
  for (int f : called) {
    CallTotals t = call_totals(job, f);
    uint64_t count = t.count, nanos = t.nanos, bytes = t.bytes;
    Spread sp = spread(t.seconds_per_rank);
    double total = double(nanos) * 1e-9, mean = count ? total / double(count) : 0;
    // Calls that only read local state are counted, not timed (src/profile: two clock reads would cost more).
    const char* estimate = t.timed < count ? "~" : "";
    auto timed = [&](double v) { return nanos == 0 ? std::string("not timed") : estimate + seconds_text(v); };
    o << "<tr>" << cell(job.call_names[size_t(f)]) << cell(double(count), std::to_string(count))
      << cell(total, timed(total))
      << cell(double(t.wait_nanos) * 1e-9, t.wait_nanos == 0 ? std::string("") : estimate + seconds_text(double(t.wait_nanos) * 1e-9))
      << cell(mean, timed(mean)) << cell(double(bytes), bytes_text(double(bytes)))
      << cell(sp.min, timed(sp.min)) << cell(sp.median, timed(sp.median)) << cell(sp.max, timed(sp.max)) << "</tr>";
  }
  o << "</tbody></table>\n";

  // Point to point.
  o << "<h2>Point-to-point traffic</h2><p class=\"note\">Messages a rank started sending (blocking, nonblocking "
       "and persistent sends, the last at each MPI_Start).</p>"
    << "<h3>Bytes sent</h3>" << heat_map(job, &RankCounts::peer_bytes, true) << "<h3>Messages sent</h3>"
    << heat_map(job, &RankCounts::peer_messages, false) << "\n";
  bool one_sided = std::any_of(job.ranks.begin(), job.ranks.end(), [](const RankCounts& r) {
    return std::any_of(r.peer_rma_ops.begin(), r.peer_rma_ops.end(), [](uint64_t n) { return n > 0; });
  });
  if (one_sided)
    o << "<h2>One-sided traffic</h2><p class=\"note\">Put, Get, Accumulate, Get_accumulate, Fetch_and_op and "
         "Compare_and_swap (and their request forms) by origin (rows) and target (columns), counted as they "
         "are called (a call that fails with an error is counted too, as sends are); bytes are the origin's "
         "side.</p><h3>Bytes</h3>"
      << heat_map(job, &RankCounts::peer_rma_bytes, true) << "<h3>Operations</h3>"
      << heat_map(job, &RankCounts::peer_rma_ops, false) << "\n";

  o << "<h2>Message sizes per call</h2><div class=\"hists\">";
  for (int f : called) {
    CallTotals t = call_totals(job, f);
    bool data = std::any_of(t.sizes + 1, t.sizes + layout::kBuckets, [](uint64_t n) { return n > 0; });
    if (data) o << "<div><b>" << escape(job.call_names[size_t(f)]) << "</b><br>" << histogram(t.sizes) << "</div>";
  }
  o << "</div>\n";

  // Collective algorithm choices.
  o << "<h2>Collective algorithms chosen</h2>"
    << table_head({"operation", "algorithm", "calls (all ranks)", "smallest", "largest"});
  for (int op = 0; op < layout::kCollSlots; ++op)
    for (int a = 0; a < layout::kCollSlots; ++a) {
      uint64_t calls = 0;
      int lo = layout::kBuckets, hi = -1;
      for (const RankCounts& r : job.ranks)
        for (int b = 0; b < layout::kBuckets; ++b)
          if (uint64_t n = r.coll[(size_t(op) * layout::kCollSlots + size_t(a)) * layout::kBuckets + size_t(b)]) {
            calls += n;
            lo = std::min(lo, b);
            hi = std::max(hi, b);
          }
      if (calls == 0) continue;
      o << "<tr>" << cell(job.coll_operations[size_t(op)]) << cell(job.coll_algorithms[size_t(a)])
        << cell(double(calls), std::to_string(calls)) << cell(lo, bucket_text(lo) + " B…") << cell(hi, bucket_text(hi) + " B…")
        << "</tr>";
    }
  o << "</tbody></table>\n";

  // Transports.
  std::map<std::string, int> pairs;
  for (const RankCounts& r : job.ranks)
    for (size_t p = 0; p < r.transports.size(); ++p)
      if (r.peer_messages[p] > 0 || int(p) != r.rank) pairs[r.transports[p].empty() ? "(unknown)" : r.transports[p]]++;
  o << "<h2>Transports</h2>" << table_head({"transport", "rank pairs it carries", "of which exchanged messages"});
  for (auto& [name, count] : pairs) {
    int used = 0;
    for (const RankCounts& r : job.ranks)
      for (size_t p = 0; p < r.transports.size(); ++p)
        if ((r.transports[p].empty() ? "(unknown)" : r.transports[p]) == name && r.peer_messages[p] > 0) ++used;
    o << "<tr>" << cell(name) << cell(count, std::to_string(count)) << cell(used, std::to_string(used)) << "</tr>";
  }
  o << "</tbody></table>\n";

  // MPI-IO.
  std::vector<FileSummary> fs = files(job);
  o << "<h2>MPI-IO</h2>";
  if (fs.empty()) o << "<p>No file was opened with MPI_File_open.</p>";
  else {
    o << table_head({"file", "opens", "read", "written", "reads", "writes", "collective", "independent",
                     "aggregators (two-phase)", "time (all ranks)"});
    for (const FileSummary& f : fs)
      o << "<tr>" << cell(f.name) << cell(double(f.total.opens), std::to_string(f.total.opens))
        << cell(double(f.total.bytes_read), bytes_text(double(f.total.bytes_read)))
        << cell(double(f.total.bytes_written), bytes_text(double(f.total.bytes_written)))
        << cell(double(f.total.reads), std::to_string(f.total.reads)) << cell(double(f.total.writes), std::to_string(f.total.writes))
        << cell(double(f.total.collective_accesses), std::to_string(f.total.collective_accesses))
        << cell(double(f.total.independent_accesses), std::to_string(f.total.independent_accesses))
        << cell(double(f.aggregators.size()), aggregator_text(f))
        << cell(double(f.total.ticks) * 1e-9, seconds_text(double(f.total.ticks) * 1e-9)) << "</tr>";
    o << "</tbody></table><div class=\"hists\">";
    for (const FileSummary& f : fs)
      o << "<div><b>access sizes: " << escape(f.name) << "</b><br>" << histogram(f.total.sizes) << "</div>";
    o << "</div><h3>Time in MPI-IO per rank</h3>";
    Series io{"MPI-IO", "#59a14f", std::vector<double>(size_t(job.size), 0.0)};
    double peak = 0;
    for (const FileSummary& f : fs)
      for (size_t r = 0; r < f.seconds_per_rank.size(); ++r) peak = std::max(peak, io.values[r] += f.seconds_per_rank[r] * 1e3);
    o << stacked_bars({io}, peak * 1.1, " ms");
  }

  // Ranks.
  o << "<h2>Ranks</h2>" << table_head({"rank", "host", "binding (CPUs)", "finished", "wall time", "in MPI", "in MPI %"});
  for (const RankCounts& r : job.ranks) {
    double mpi = seconds_in(job, r, nullptr);
    o << "<tr>" << cell(r.rank, std::to_string(r.rank)) << cell(r.host) << cell(r.binding)
      << cell(r.finalized ? "yes" : r.found ? "no (partial)" : "no counts") << cell(r.wall_s, seconds_text(r.wall_s))
      << cell(mpi, seconds_text(mpi)) << cell(r.wall_s > 0 ? 100 * mpi / r.wall_s : 0, fmt("%.1f", r.wall_s > 0 ? 100 * mpi / r.wall_s : 0))
      << "</tr>";
  }
  o << "</tbody></table>\n<p class=\"note\">Written by Ferry's mpirun (FERRY_PROFILE); the same numbers are in the "
       "JSON file beside this one.</p>\n<script>"
    << kScript << "</script></body></html>\n";
  return o.str();
}

}  // namespace ferry::launcher::profile
