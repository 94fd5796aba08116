// mpirun's command line: Open MPI and MPICH (Hydra) spellings, parsed once
// into Options before anything is started.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/hostfile.h"
#include "launcher/hosts/launch_policy.h"
#include "launcher/hosts/placement.h"
#include "launcher/restart/fault_options.h"

namespace ferry::launcher {

struct Options {
  // -n; without it, one rank (MPICH) on this host alone, one per slot (Open
  // MPI) with a host list, N per host with --ppn N. Set from the placement.
  int num_ranks = 1;
  bool num_ranks_given = false;   // -n was given
  bool oversubscribe = false;     // more ranks than slots; one host always allows it
  bool allow_run_as_root = false; // accepted; Ferry does not refuse root
  bool tag_output = false;        // prefix forwarded lines with "[rank] "
  bool torch_env = true;          // torchrun's worker variables (training_environment.h)
  int universe_size = 0;          // --universe-size / -usize; 0: from the allocation
  int timeout_s = 0;              // --timeout / MPIEXEC_TIMEOUT: end the job after this long; 0: never
  std::string working_dir;        // --wdir; empty: mpirun's own directory
  // Variables for every rank, in the order they apply (-x first, then
  // -genv/-env): a later entry for the same name wins.
  std::vector<std::pair<std::string, std::string>> environment;
  std::string program;            // as the user wrote it (argv[0] of the ranks)
  std::string program_path;       // resolved like execvp: what is executed
  std::vector<std::string> program_args;  // argv of the ranks, program first

  // Where the ranks run. `hosts`: the hostfiles (--hostfile, -f) merged,
  // narrowed to the hosts that -H names when both are given (Open MPI);
  // -H alone; else the Slurm allocation mpirun runs in; else empty (this
  // host only).
  std::vector<hosts::HostEntry> hosts;
  int ranks_per_node = 0;         // --ppn/--npernode; 0: not given
  MapBy map_by = MapBy::kSlot;
  BindTo bind_to = BindTo::kDefault;
  bool report_bindings = false;
  std::string launch_agent;       // --launch-agent; empty: ssh through libssh
  bool accept_new_host_keys = false;
  Placement placement;            // place_ranks() of the above, with is_this_host
  PlacementRequest placement_request;  // what `placement` was made from (a restart without a lost host redoes it)

  FaultTolerance fault;           // checkpoints and restarts (fault_options.h)
};

// What parsing decided: run the job, print text and exit (--help,
// --version), or refuse with one line.
struct ParseOutcome {
  enum class Kind { kRun, kPrintAndExit, kError };
  Kind kind = Kind::kRun;
  Options options;    // kRun
  std::string text;   // kPrintAndExit: the help or version text
  std::string error;  // kError: "mpirun: <what is wrong>", one line
};

// Looks up a variable of mpirun's environment (for -x VAR and PATH); tests
// pass their own.
using EnvironmentLookup = std::function<std::optional<std::string>(const char*)>;

// Rewrites the multi-letter single-dash spellings that Open MPI and Hydra
// accept (-np, -genv, -wdir, ...) into the double-dash form CLI11 parses.
// Only mpirun's own arguments are touched: the walk stops at the program name
// (or "--"), so `mpirun -n 2 prog -np 3` leaves prog's "-np" alone.
std::vector<std::string> normalize_arguments(std::span<const std::string> args);

// Parses mpirun's arguments (without argv[0]). Checks everything that can be
// checked before starting: the rank count, the program (searched in PATH as
// execvp would), the working directory.
ParseOutcome parse_options(std::span<const std::string> args, const EnvironmentLookup& lookup);

// Resolves `program` the way execvp would: a name with a slash is used as
// is, others are searched in `path` (colon-separated; an empty entry is the
// current directory). Returns the path to execute, or the one-line reason.
struct Resolved {
  std::string path;
  std::string error;
};
Resolved resolve_program(const std::string& program, const std::optional<std::string>& path);

}  // namespace ferry::launcher
