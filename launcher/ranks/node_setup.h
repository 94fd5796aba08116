// What a host's share of the job looks like to the process that starts its
// ranks (mpirun for its own host, the node daemon for the others): the
// LocalRanks set-up, bindings included, and the PMIx description of the job
// as seen from that node.
#pragma once

#include <hwloc.h>

#include <string>

#include "launcher/job_plan.h"
#include "launcher/pmix/job_info.h"
#include "launcher/ranks/local_ranks.h"

namespace ferry::launcher {

// Throws std::runtime_error with a one-line reason ("mpirun: ...") when
// the ranks cannot be bound as asked.
LocalRanksSetup node_setup(const JobPlan& plan, int node, hwloc_topology_t topology, bool end_lines);

JobDescription job_description(const JobPlan& plan, int node);

}  // namespace ferry::launcher
