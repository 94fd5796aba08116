#include "launcher/restart/fault_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

namespace ferry::launcher {
namespace {

// Timers count int milliseconds: 24 days at most.
constexpr double kMaxMs = 24.0 * 24 * 3600 * 1000;

// SECONDS as a user writes them: "30", "0.5". Milliseconds, or nothing for
// text that is not a plain non-negative number; -1 for more than kMaxMs.
std::optional<int> parse_seconds(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  double s = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(s)) return std::nullopt;
  double ms = std::round(s * 1000);
  return ms > kMaxMs ? -1 : int(ms);
}

std::optional<int> parse_count(const std::string& text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// mkdir -p: the ranks write their epochs below it, on every host that sees
// this path (a shared file system, like the working directory).
std::string make_directory(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      return "cannot create --checkpoint-dir '" + path + "': " + std::strerror(errno) + " (at '" + prefix + "')";
    if (slash == std::string::npos) break;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "--checkpoint-dir '" + path + "' is not a directory";
  if (::access(path.c_str(), W_OK | X_OK) != 0) return "--checkpoint-dir '" + path + "' is not writable";
  return "";
}

std::string absolute(const std::string& path) {
  if (path[0] == '/') return path;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return path;
  std::string base = cwd;
  return (base.ends_with('/') ? base : base + "/") + path;
}

// --checkpoint-redundancy and --checkpoint-local-dir, which go together.
std::string apply_redundancy(const RawFaultOptions& raw, int hosts, FaultTolerance& out) {
  const std::string& redundancy = raw.checkpoint_redundancy;
  if (!redundancy.empty() && redundancy != "none" && redundancy != "partner")
    return "--checkpoint-redundancy needs none or partner, not '" + redundancy + "'";
  if (redundancy != "partner") {
    if (!raw.checkpoint_local_dir.empty())
      return "--checkpoint-local-dir needs --checkpoint-redundancy partner (node-local files alone do not "
             "survive the loss of their host)";
    return "";
  }
  if (raw.checkpoint_local_dir.empty())
    return "--checkpoint-redundancy partner needs --checkpoint-local-dir DIR (each host's own storage)";
  if (!raw.checkpoint_dir.empty())
    return "--checkpoint-redundancy partner writes to --checkpoint-local-dir; leave out --checkpoint-dir";
  if (hosts < 2)
    return "--checkpoint-redundancy partner needs ranks on at least two hosts (this job has " +
           std::to_string(hosts) + "): a copy on the same host does not survive its loss";
  out.checkpoint_local_dir = absolute(raw.checkpoint_local_dir);
  out.partner_redundancy = true;
  return "";
}

}  // namespace

std::span<const FaultOption> fault_option_table() {
  static constexpr FaultOption table[] = {
      {"--checkpoint-dir", &RawFaultOptions::checkpoint_dir, "DIR",
       "Directory the ranks' MPIX_Checkpoint commits to and MPIX_Restore reads (created if needed); "
       "also -ckpoint-prefix (Hydra)"},
      {"--checkpoint-local-dir", &RawFaultOptions::checkpoint_local_dir, "DIR",
       "Node-local directory each host's ranks commit to (created by them; %h becomes the host name); "
       "needs --checkpoint-redundancy partner"},
      {"--checkpoint-redundancy", &RawFaultOptions::checkpoint_redundancy, "none|partner",
       "none (default: --checkpoint-dir, shared by every host) or partner (SCR's PARTNER: each rank's "
       "files in --checkpoint-local-dir and a copy on the next host, which survives losing one host's "
       "storage)"},
      {"--checkpoint-interval", &RawFaultOptions::checkpoint_interval, "SECONDS",
       "Ask the ranks for a checkpoint every SECONDS (MPIX_Checkpoint_due answers 1); SIGUSR1 to "
       "mpirun asks at once; also -ckpoint-interval"},
      {"--checkpoint-keep", &RawFaultOptions::checkpoint_keep, "K",
       "Complete checkpoints kept (default 2)"},
      {"--ckpointlib", &RawFaultOptions::checkpoint_library, "LIB",
       "How processes are checkpointed: app (the default: the program's MPIX_Checkpoint hooks); "
       "blcr is not supported; also -ckpointlib (Hydra)"},
      {"--max-restarts", &RawFaultOptions::max_restarts, "N",
       "Start a failed job again up to N times (a rank's failure, a lost host, --timeout); ranks see "
       "FERRY_RESTART_COUNT (default 0)"},
      {"--restart-delay", &RawFaultOptions::restart_delay, "SECONDS",
       "Seconds between a failed attempt and the next (default 0)"},
      {"--restart-from", &RawFaultOptions::restart_from, "N|latest",
       "Checkpoint epoch the ranks' MPIX_Restore reads: N or latest (default); also -ckpoint-num "
       "(Hydra)"},
  };
  return table;
}

std::string apply_fault_options(const RawFaultOptions& raw, int hosts, FaultTolerance& out,
                                std::vector<std::pair<std::string, std::string>>& env) {
  if (!raw.checkpoint_library.empty() && raw.checkpoint_library != "app") {
    if (raw.checkpoint_library == "blcr")
      return "-ckpointlib blcr: BLCR is not supported (it is gone from current kernels, and CRIU does not "
             "work on all). Ferry checkpoints through the program: register save/restore hooks with "
             "MPIX_Checkpoint_hook, call MPIX_Checkpoint when MPIX_Checkpoint_due answers 1, and run with "
             "--checkpoint-dir DIR (-ckpointlib app, the default)";
    return "-ckpointlib needs app (blcr is not supported), not '" + raw.checkpoint_library + "'";
  }
  if (!raw.checkpoint_dir.empty()) {
    out.checkpoint_dir = absolute(raw.checkpoint_dir);
    if (std::string problem = make_directory(out.checkpoint_dir); !problem.empty()) return problem;
    env.emplace_back("FERRY_CHECKPOINT_DIR", out.checkpoint_dir);
  }
  if (std::string problem = apply_redundancy(raw, hosts, out); !problem.empty()) return problem;
  if (out.partner_redundancy) {
    env.emplace_back("FERRY_CHECKPOINT_LOCAL_DIR", out.checkpoint_local_dir);
    env.emplace_back("FERRY_CHECKPOINT_REDUNDANCY", "partner");
  }
  if (!raw.checkpoint_interval.empty()) {
    std::optional<int> ms = parse_seconds(raw.checkpoint_interval);
    if (ms == -1) return "--checkpoint-interval " + raw.checkpoint_interval + " is more than 24 days";
    if (!ms || *ms <= 0)
      return "--checkpoint-interval needs a positive number of seconds, not '" + raw.checkpoint_interval + "'";
    out.checkpoint_interval_ms = *ms;
  }
  if (!raw.checkpoint_keep.empty()) {
    std::optional<int> k = parse_count(raw.checkpoint_keep);
    if (!k || *k <= 0)
      return "--checkpoint-keep needs a positive number of checkpoints, not '" + raw.checkpoint_keep + "'";
    env.emplace_back("FERRY_CHECKPOINT_KEEP", raw.checkpoint_keep);
  }
  if (!raw.max_restarts.empty()) {
    std::optional<int> n = parse_count(raw.max_restarts);
    if (!n) return "--max-restarts needs a number of restarts (0 or more), not '" + raw.max_restarts + "'";
    out.max_restarts = *n;
  }
  if (!raw.restart_delay.empty()) {
    std::optional<int> ms = parse_seconds(raw.restart_delay);
    if (ms == -1) return "--restart-delay " + raw.restart_delay + " is more than 24 days";
    if (!ms) return "--restart-delay needs a number of seconds (0 or more), not '" + raw.restart_delay + "'";
    out.restart_delay_ms = *ms;
  }
  if (!raw.restart_from.empty()) {
    if (raw.restart_from != "latest" && !parse_count(raw.restart_from))
      return "--restart-from needs an epoch number or 'latest', not '" + raw.restart_from + "'";
    out.restart_from = raw.restart_from;
    env.emplace_back("FERRY_RESTART_FROM", raw.restart_from);
  }
  return "";
}

}  // namespace ferry::launcher
