// The life of a job: start the ranks, run the one event loop that forwards
// their output and watches signals, PMIx events and exits, end the job when
// a rank fails, and decide mpirun's exit status.
#pragma once

#include <signal.h>
#include <sys/resource.h>

#include <optional>
#include <string>
#include <vector>

#include "launcher/job_plan.h"
#include "launcher/options.h"
#include "launcher/pmix/pmix_host.h"

namespace ferry::launcher {

// The signals mpirun handles in its event loop (SIGCHLD, SIGINT, SIGTERM,
// SIGHUP, SIGTSTP, SIGCONT, and SIGUSR1: a checkpoint is due) are blocked and read from a signalfd. They must
// be blocked before any thread starts, so that PMIx's thread inherits the
// mask and no signal is delivered to it instead.
struct SignalSetup {
  sigset_t handled;          // blocked in mpirun, read through the signalfd
  sigset_t original_mask;    // what the ranks start with
  bool default_sigpipe;      // mpirun ignores SIGPIPE; ranks get the default
};
SignalSetup take_over_signals();

// What mpirun changed about itself that the ranks must not inherit.
struct RankDefaults {
  SignalSetup signals;
  std::optional<rlimit> file_limit;  // set when mpirun raised its own
  std::vector<int> inherited_fds;    // inherited_descriptors() at start-up (spawn.h)
};

// A host the job lost, and why ("its node daemon was lost (connection
// closed)", "cannot start its node daemon: ...").
struct LostHost {
  std::string host;
  std::string reason;
};

// How one run of the job ended.
struct JobOutcome {
  int status = 0;            // mpirun's exit status: 0, or that of the first failure
  std::string failure;       // the line that reported the first failure
  bool restartable = false;  // failed in a way --max-restarts starts again
                             // (a rank, a lost host, the time limit)
  std::vector<LostHost> lost_hosts;  // whose node daemon's link was lost while the job ran
  // A host whose node daemon could not be started: final for a first run
  // (the host list is wrong), a lost host for a restart (it was there).
  std::optional<LostHost> unreachable;
  double started_ms = 0;     // monotonic_ms() once every rank was started
  double failed_ms = 0;      // monotonic_ms() when the first failure was noticed
};

// Starts the job's ranks (those of mpirun's host itself; the others
// through a node daemon per host, see daemon_start.h) and runs it to the
// end. `local_node`: the plan's node on this host, or -1.
JobOutcome run_job(const Options& options, const JobPlan& plan, int local_node, PmixHost& server,
            const RankDefaults& defaults);

}  // namespace ferry::launcher
