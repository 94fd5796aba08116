// The node daemon (ferryd) at work on its host, once started and detached:
// first it starts its own children in the daemon tree (daemon_start.h), then
// it is the host's PMIx server, its ranks (started, bound, their output and
// exits sent up), its place in the daemon tree (children's messages up,
// mpirun's down, fences combined). It ends with the job: on mpirun's shutdown, or as
// soon as its link upwards closes (mpirun or the parent daemon died, even by
// SIGKILL), taking its ranks with it.
#pragma once

#include <string>

#include "launcher/job_plan.h"

namespace ferry::launcher {

// Never returns. `parent_fd`: the link to the parent, greeted already;
// `listen_fd`: where children connect (-1: none), at `listen_addresses`
// (comma-separated) and `listen_port`, where the daemon tells the children
// it starts to connect; `diagnostics_fd`: the read end of the daemon's own
// stdout and stderr (-1: none), whose lines go to mpirun's stderr.
[[noreturn]] void run_node_daemon(const JobPlan& plan, int position, int parent_fd, int listen_fd,
                                  const std::string& listen_addresses, int listen_port, int diagnostics_fd);

}  // namespace ferry::launcher
