// Collective IO, phase 5: per call, two-phase collective buffering or
// direct access (ROMIO's "automatic"), and the end every process shares.
//
// Steered by romio_cb_write / romio_cb_read: "enable" always aggregates,
// "disable" never does, "automatic" (the default) aggregates when the
// processes' file ranges interleave, as ROMIO decides: then each process's
// data is scattered among the others' and an aggregator turns many small
// writes into few large ones (but not where every piece is already large
// and the file system local: large_local_pieces below). Ranges that do not interleave (each process
// one block of the file, say) gain nothing from a detour through an
// aggregator, and each process accesses its own. Atomic mode (§13.6.1)
// and views not in file order always go direct: io/access.cc locks each
// process's range there.
//
// Cost: the decision is one allgather of twelve words; the two-phase path
// ends with an allgather of six (the outcome, and what each aggregator did,
// for FERRY_DEBUG=io), plus an agreement on the message when one failed.
#include "io/collective.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <unistd.h>

#include "base/datatype.h"
#include "coll/collectives.h"
#include "common/debug.h"
#include "io/agreement.h"
#include "io/errors.h"
#include "io/two_phase.h"

namespace ferry::io {
namespace {

constexpr uint64_t kMaxPerCall = 1u << 30;

// What each process tells at the end of a two-phase call: failed, and as
// an aggregator, bytes, calls, holes read, ns in the file calls, ns waited
// for them, the most collective buffer held; and the most it staged.
constexpr size_t kOutcomeWords = 8;

const char* use_name(Use u) {
  return u == Use::kEnable ? "enable" : u == Use::kDisable ? "disable" : "automatic";
}

// Whether some process's range begins before another's ends.
bool interleaved(const std::vector<RankRange>& ranges) {
  std::vector<std::pair<int64_t, int64_t>> sorted;
  for (const RankRange& r : ranges)
    if (r.bytes > 0) sorted.push_back({r.first, r.end});
  std::sort(sorted.begin(), sorted.end());
  int64_t end = -1;
  for (const auto& [first, last] : sorted) {
    if (first < end) return true;
    end = std::max(end, last);
  }
  return false;
}

// Whether every process with data accesses the file in pieces of at least
// kDirectPiece (io/two_phase.h), on a local file system. Then each process writes or reads
// its own pieces directly even where they interleave: an aggregator would
// save one system call per piece (about 1.5 us) at the cost of copying
// every byte once more between processes (about 0.1-0.2 ns a byte here),
// which is a loss from ~16 KiB pieces up; a 256^3 array in 256 KiB pieces
// over 4 ranks wrote at 10.1-10.8 GB/s directly against 5.5-6.8 through
// one aggregator (docs/performance.md). ROMIO's rule stays for network and
// parallel file systems, whose locks and caches are what aggregation
// protects, and for small pieces everywhere.
bool large_local_pieces(const std::vector<RankRange>& ranges) {
  bool any = false;
  for (const RankRange& r : ranges) {
    if (r.bytes == 0) continue;
    if (static_cast<uint64_t>(r.local_piece) < kDirectPiece) return false;
    any = true;
  }
  return any;
}

// "128 MiB", "4 KiB", "17 B".
std::string amount(uint64_t bytes) {
  char text[32];
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) std::snprintf(text, sizeof text, "%llu MiB", (unsigned long long)(bytes >> 20));
  else if (bytes >= 1024 && bytes % 1024 == 0) std::snprintf(text, sizeof text, "%llu KiB", (unsigned long long)(bytes >> 10));
  else std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  return text;
}

// The FERRY_DEBUG=io line of one collective call, printed by process 0.
void describe(const File& f, Direction direction, const Plan& plan, const char* pattern, const char* path,
              const std::vector<int64_t>& outcome) {
  const bool writing = direction == Direction::kWrite;
  std::string line;
  char part[256];
  std::snprintf(part, sizeof part, "%s %s from %d processes on %d host%s, %s: %s", writing ? "write_all" : "read_all",
                amount(plan.total_bytes).c_str(), f.comm->size, plan.hosts, plan.hosts == 1 ? "" : "s", pattern,
                path);
  line = part;
  if (!plan.aggregators.empty()) {
    std::snprintf(part, sizeof part, ", %zu aggregator%s, %lld round%s of %s (cb_buffer_size %s), %s;",
                  plan.aggregators.size(), plan.aggregators.size() == 1 ? "" : "s", static_cast<long long>(plan.rounds),
                  plan.rounds == 1 ? "" : "s", amount(plan.window).c_str(),
                  amount(static_cast<uint64_t>(plan.ranges[0].cb_buffer_size)).c_str(),
                  plan.double_buffered ? (writing ? "double-buffered (each write beside the next round's exchange)"
                                                  : "double-buffered (each read beside the previous round's exchange)")
                                       : "one block at a time");
    line += part;
    for (int a : plan.aggregators) {
      const int64_t* o = &outcome[kOutcomeWords * static_cast<size_t>(a)];
      std::snprintf(part, sizeof part, " rank %d %s %s in %lld call%s%s", a, writing ? "wrote" : "read",
                    amount(static_cast<uint64_t>(o[1])).c_str(), static_cast<long long>(o[2]), o[2] == 1 ? "" : "s",
                    o[3] > 0 ? (", holes read " + amount(static_cast<uint64_t>(o[3]))).c_str() : "");
      line += part;
      // How much of the time in the file calls the aggregator did not wait
      // for: the overlap (none when one block at a time).
      if (plan.double_buffered && o[4] > 0) {
        const double hidden = 1.0 - static_cast<double>(std::min(o[5], o[4])) / static_cast<double>(o[4]);
        std::snprintf(part, sizeof part, ", its blocks %.1f ms in the file, %.0f%% of it overlapped",
                      static_cast<double>(o[4]) / 1e6, 100.0 * hidden);
        line += part;
      }
      // Blocks and landing area: never more than cb_buffer_size.
      std::snprintf(part, sizeof part, ", held %s", amount(static_cast<uint64_t>(o[6])).c_str());
      line += part;
      if (a != plan.aggregators.back()) line += ";";
      if (line.size() > 800) {
        line += " ...";
        break;
      }
    }
    // Data packed apart because a buffer is not one dense run: besides the
    // collective buffer, on any process.
    int64_t staged = 0;
    for (int r = 0; r < f.comm->size; ++r) staged = std::max(staged, outcome[kOutcomeWords * static_cast<size_t>(r) + 7]);
    if (staged > 0) {
      std::snprintf(part, sizeof part, "; a process staged at most %s of its buffer (not dense)",
                    amount(static_cast<uint64_t>(staged)).c_str());
      line += part;
    }
  }
  debug::print("file '%s': %s", f.path.c_str(), line.c_str());
}

}  // namespace

char* collective_buffer(int which, uint64_t bytes, uint64_t* held) {
  // Per thread, so that threads accessing different files never share one.
  thread_local std::unique_ptr<char[]> buffers[4];
  thread_local uint64_t sizes[4] = {0, 0, 0, 0};
  // Data sieving's window only grows; the collective buffer's parts are
  // cut to the size asked (the plan's, the same every round of a file), so
  // that a call with a smaller cb_buffer_size does not keep an earlier
  // call's larger blocks.
  const bool exact = which != 2;
  if (bytes > sizes[which] || (exact && bytes != sizes[which])) {
    buffers[which].reset();
    buffers[which] = std::make_unique_for_overwrite<char[]>(bytes);
    sizes[which] = bytes;
  }
  if (held != nullptr) *held += sizes[which];
  return buffers[which].get();
}

int write_range(int fd, const char* data, uint64_t bytes, uint64_t offset) {
  while (bytes > 0) {
    ssize_t n = ::pwrite(fd, data, std::min(bytes, kMaxPerCall), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;  // no progress and no error: the device took nothing
    data += n;
    bytes -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return 0;
}

int read_range(int fd, char* data, uint64_t bytes, uint64_t offset) {
  while (bytes > 0) {
    ssize_t n = ::pread(fd, data, std::min(bytes, kMaxPerCall), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) {  // the end of the file: what lies beyond reads as zeros
      std::fill(data, data + bytes, 0);
      return 0;
    }
    data += n;
    bytes -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return 0;
}

Err collective_access(File& f, Direction direction, uint64_t position, const Buffer& buffer, uint64_t bytes,
                      Err checked, bool* direct, uint64_t* done, const Detour* detour) {
  *direct = false;
  *done = 0;
  // Atomic mode is set collectively: every process goes direct alike. The
  // rounds move the file's bytes; with a converting representation
  // (external32, a registered one) each round's pieces are converted on
  // their way (`detour`), as a GPU buffer's are copied.
  if (f.atomic || f.comm->size == 1) {
    if (checked) return checked;
    *direct = true;
    return {};
  }
  const bool writing = direction == Direction::kWrite;
  const Use use = writing ? f.tuning.cb_write : f.tuning.cb_read;
  int64_t flags = checked ? int64_t{kArgumentsFailed} : int64_t{0};
  if (bytes > 0 && !FlatAccess::ordered(f.view)) flags |= kUnordered;

  // A read stops at the end of the file (§13.4.1): the part of the access
  // below it is what the processes exchange.
  if (!checked && !writing && bytes > 0) {
    struct stat st;
    if (::fstat(f.fd, &st) != 0) {
      checked = system_error(errno, "cannot get the size of", f.path);
      flags |= kArgumentsFailed;
    } else if (!(flags & kUnordered)) {
      bytes = FlatAccess(f.view, position, bytes).packed_below(static_cast<uint64_t>(st.st_size));
    }
  }
  FlatAccess access(f.view, position, (flags & (kArgumentsFailed | kUnordered)) ? 0 : bytes);

  // Phase 2: everyone's range, the decision, the domains.
  RankRange mine;
  std::vector<RankRange> ranges;
  if (Err e = exchange_ranges(f, access, flags, use, &mine, &ranges)) return e;
  bool failed = false, unordered = false;
  for (const RankRange& r : ranges) {
    failed |= (r.flags & kArgumentsFailed) != 0;
    unordered |= (r.flags & kUnordered) != 0;
  }
  if (failed) return agree(f.comm, std::move(checked));

  const Use chosen = static_cast<Use>(ranges[0].use);
  const bool mixed = interleaved(ranges);
  const bool large = large_local_pieces(ranges);
  const char* pattern = unordered ? "views out of file order"
                        : mixed && large ? "interleaved in pieces of 64 KiB or more on a local file system"
                        : mixed          ? "interleaved"
                                         : "not interleaved";
  Plan plan;
  bool two_phase = !unordered && (chosen == Use::kEnable || (chosen == Use::kAutomatic && mixed && !large));
  if (!two_phase) {
    if (debug::on(debug::kIo) && f.comm->rank == 0) {
      uint64_t total = 0;
      for (const RankRange& r : ranges) total += static_cast<uint64_t>(r.bytes);
      debug::print("file '%s': %s %s from %d processes, %s: direct (romio_cb_%s %s)", f.path.c_str(),
                   writing ? "write_all" : "read_all", amount(total).c_str(), f.comm->size, pattern,
                   writing ? "write" : "read", use_name(chosen));
    }
    *direct = true;
    return {};
  }
  plan_domains(f, std::move(ranges), &plan);

  // Phases 3 and 4.
  AggregatorReport report;
  Err local = writing ? write_two_phase(f, plan, access, buffer, &report, detour)
                      : read_two_phase(f, plan, access, buffer, &report, detour);
  if (plan.my_domain >= 0) {
    f.aggregations.fetch_add(1, std::memory_order_relaxed);
    f.aggregated_bytes.fetch_add(report.bytes, std::memory_order_relaxed);
  }

  // The end: the same outcome everywhere, and what each aggregator did.
  int64_t mine_out[kOutcomeWords] = {local ? 1 : 0, static_cast<int64_t>(report.bytes),
                                     static_cast<int64_t>(report.syscalls), static_cast<int64_t>(report.holes_read),
                                     static_cast<int64_t>(report.transfer_ns), static_cast<int64_t>(report.waited_ns),
                                     static_cast<int64_t>(report.held), static_cast<int64_t>(report.staged)};
  std::vector<int64_t> outcome(kOutcomeWords * static_cast<size_t>(f.comm->size));
  if (Err e = coll::allgather(mine_out, kOutcomeWords, find_datatype(MPI_INT64_T), outcome.data(), kOutcomeWords,
                              find_datatype(MPI_INT64_T), f.comm))
    return e;
  bool any_failed = false;
  for (int r = 0; r < f.comm->size; ++r) any_failed |= outcome[kOutcomeWords * static_cast<size_t>(r)] != 0;
  if (debug::on(debug::kIo) && f.comm->rank == 0)
    describe(f, direction, plan, pattern, "two-phase", outcome);
  if (any_failed) return agree(f.comm, std::move(local));
  *done = access.bytes();
  return {};
}

}  // namespace ferry::io
