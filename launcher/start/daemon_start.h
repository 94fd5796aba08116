// Starting the node daemons of a job (ferryd, next to mpirun) on their
// hosts, through remote_start: each process of the daemon tree starts its own
// children (mpirun those at the top, every daemon those below it), several
// at a time, so that start-up takes rounds in the logarithm of the hosts
// rather than hosts / kMaxParallelStarts.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "launcher/job_plan.h"
#include "launcher/start/remote_start.h"

namespace ferry::launcher {

// ssh connections in flight at once from one process: enough to hide the
// round trips of each start, few enough not to look like an attack to
// sshd's MaxStartups (10 by default, beyond which it drops connections at
// random). With every daemon starting its own children, no sshd sees more
// than one connection of the start, and no process more than this many.
inline constexpr int kMaxParallelStarts = 8;

struct StartFailure {
  int position = 0;
  std::string error;         // one line, "mpirun: <host>: ..."
  bool interrupted = false;  // StartWatch::interrupted said so: no daemon failed
};

// What a process starting its children watches meanwhile (every 100 ms),
// instead of blocking on the starts for up to the start timeout:
// - a daemon, its link to its parent: when the parent goes (mpirun killed,
//   its host lost), `parent_gone` is called and must not return (the
//   daemon ends), rather than start the rest of its subtree for nobody;
// - mpirun, `interrupted`: true when a signal asks it to end (SIGTERM to
//   mpirun alone, as a batch system's scancel sends it); start_children
//   then returns at once, leaving the starts in flight to end by
//   themselves (a daemon they start finds nobody to connect to and ends).
struct StartWatch {
  int parent_fd = -1;  // -1: mpirun, which has no parent
  std::function<void()> parent_gone;
  std::function<bool()> interrupted;
};

// Starts a daemon at every child of `position` (mpirun: 0), each told to
// connect back to `addresses` (comma-separated) and `port`, where this
// process listens. Blocks until every child has started and connected (so
// their children are being started by them meanwhile), or returns the
// first failure; after one, no further child is started. A daemon started
// already ends by itself once its parent goes.
std::optional<StartFailure> start_children(const JobPlan& plan, int position, const std::string& addresses,
                                           int port, const StartWatch& watch = {});

// What mpirun says about a daemon that could not be started: for one of
// its own children, the error as it is ("mpirun: node2: ..."); deeper, with
// the daemons it was started through ("mpirun: could not start ferryd on
// node7 (via node1, node2): ...").
std::string start_failure_message(const JobPlan& plan, const StartFailure& failure);

// The hosts whose daemons lead from mpirun down to `position`, not itself:
// {"node1", "node2"} for a daemon that node2's daemon starts.
std::vector<std::string> tree_path(const JobPlan& plan, int position);

// The ready line a daemon prints: "ferryd ready PORT ADDR[,ADDR...]".
std::string ready_line(int port, const std::vector<std::string>& addresses);
bool parse_ready_line(const std::string& line, int* port, std::string* addresses);

}  // namespace ferry::launcher
