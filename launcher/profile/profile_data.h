// FERRY_PROFILE on the launcher's side: every rank's counter file (common/profile_layout.h), read
// once the job has ended, and the sums and spreads the report shows. The report's two forms
// (profile_json.cc, profile_html.cc) are written from this alone.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/profile_layout.h"

namespace ferry::launcher::profile {

namespace layout = profile_layout;

struct RankCounts {
  int rank = 0;
  bool found = false;      // its file was there and whole
  bool finalized = false;  // it reached the end of MPI_Finalize
  int restart_count = 0;
  std::string host, binding;
  double wall_s = 0;  // MPI_Init's return to MPI_Finalize (or to the job's end, for a rank that died)
  std::vector<layout::Call> calls;               // [function]; `ticks`, `wait_ticks` converted to nanoseconds

  std::vector<uint64_t> peer_bytes, peer_messages;  // [world rank]
  std::vector<uint64_t> peer_rma_bytes, peer_rma_ops;  // [world rank]: one-sided, on each target
  std::vector<std::string> transports;           // [world rank]
  std::vector<layout::File> files;               // `ticks` converted to nanoseconds
  std::vector<uint64_t> coll;                    // [op][algorithm][bucket]
};

struct Job {
  int size = 0;
  bool partial = false;  // a rank's file is missing or unfinished, or the job failed
  int exit_status = 0;
  int attempt = 0;       // the attempt counted: 0, then FERRY_RESTART_COUNT
  bool restarted = false;  // an attempt that failed and mpirun restarted (its exit status is not kept)
  std::vector<std::string> other_reports;  // the other attempts' and spawned jobs' reports (file names)
  int spawned_id = 0;    // > 0: a job the first one spawned (MPI_Comm_spawn), its PMIx namespace's last part
  std::vector<std::string> call_names;  // [function], "" for none
  std::vector<std::string> coll_operations, coll_algorithms;  // [slot]
  std::vector<RankCounts> ranks;
  std::vector<std::pair<std::string, std::string>> settings;  // FERRY_* that differ from the default
};

// Reads <dir>/<nspace>.rank.<r> for r in [0, size), `nspace` being attempt `attempt`'s:
// `first_nspace` (ferry.<mpirun's pid>) for 0, <first_nspace>.r<k> for restart k; the last one
// present when `attempt` is kLastAttempt. `end_ns` (CLOCK_REALTIME) closes the wall time of the
// ranks that never reached MPI_Finalize.
constexpr int kLastAttempt = -1;
Job read_job(const std::string& dir, const std::string& first_nspace, int size, int exit_status, int64_t end_ns,
             int attempt = kLastAttempt);
// The attempts (0, then each restart's k) whose rank 0 left a file in `dir`, in order.
std::vector<int> attempts(const std::string& dir, const std::string& first_nspace);

// For a directory filled without mpirun (ferry_profile_report): the PMIx namespaces whose rank 0
// left a file, and a job's size as its rank 0's file says (0 if unreadable).
std::vector<std::string> jobs_in(const std::string& dir);
int job_size(const std::string& dir, const std::string& nspace);

// What the report derives, shared by both forms.
enum class Kind { kCollective, kBlockingReceive, kPointToPoint, kIo, kOther };
Kind kind_of(const std::string& call);

struct Spread {
  double min = 0, median = 0, max = 0;
};
Spread spread(std::vector<double> values);

// Seconds rank r spent in calls of `kind` (all calls if kind is nullptr).
double seconds_in(const Job& job, const RankCounts& r, const Kind* kind);

// Seconds rank r waited for late partners (src/profile/late_partners.h says what is measured).
double waiting_in(const Job& job, const RankCounts& r);

// The functions some rank called, the most time first.
std::vector<int> called_functions(const Job& job);

// One function's counts summed over the ranks, and each rank's.
struct CallTotals {
  uint64_t count = 0, nanos = 0, bytes = 0;
  uint64_t wait_nanos = 0;  // of nanos, waiting for late partners
  uint64_t timed = 0;  // calls timed; below count, the times are estimates from these

  uint64_t sizes[layout::kBuckets] = {};  // message-size histogram
  std::vector<uint64_t> count_per_rank, bytes_per_rank;
  std::vector<double> seconds_per_rank;
  std::vector<double> wait_seconds_per_rank;
};
CallTotals call_totals(const Job& job, int function);

}  // namespace ferry::launcher::profile
