// The node daemon (ferryd) at work on its host, once started and detached:
// the host's PMIx server, its ranks (started, bound, their output and exits
// sent up), its place in the daemon tree (children's messages up, mpirun's
// down, fences combined). It ends with the job: on mpirun's shutdown, or as
// soon as its link upwards closes (mpirun or the parent daemon died, even by
// SIGKILL), taking its ranks with it.
#pragma once

#include "launcher/job_plan.h"

namespace ferry::launcher {

// Never returns. `parent_fd`: the link to the parent, greeted already;
// `listen_fd`: where children connect (-1: none); `diagnostics_fd`: the
// read end of the daemon's own stdout and stderr (-1: none), whose lines
// go to mpirun's stderr.
[[noreturn]] void run_node_daemon(const JobPlan& plan, int position, int parent_fd, int listen_fd,
                                  int diagnostics_fd);

}  // namespace ferry::launcher
