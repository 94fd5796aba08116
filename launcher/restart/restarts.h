// Restarting a failed job (--max-restarts, issue 15), as torchrun restarts
// its workers: the failed attempt is ended as any failed job is (job.h), and
// after --restart-delay the job starts again with the same arguments and
// placement in a fresh PMIx namespace; its ranks see FERRY_RESTART_COUNT
// (1, 2, ...) and restore from the latest complete checkpoint. A host whose
// node daemon was lost is left out when the other hosts' slots hold every
// rank; otherwise the restart fails with a line saying so. When the restarts
// are spent, mpirun prints one line per attempt and exits with the last
// failure's status.
#pragma once

#include <functional>

#include "launcher/job.h"
#include "launcher/job_plan.h"
#include "launcher/options.h"
#include "launcher/pmix/pmix_host.h"

namespace ferry::launcher {

// The plan of one attempt (main.cc's make_plan): `options` may have fewer
// hosts than mpirun was given; `attempt` is 0 for the first run.
using PlanMaker = std::function<JobPlan(const Options& options, int attempt, int* local_node)>;

// Runs the job until it succeeds, fails in a way a restart cannot mend, or
// its restarts are spent. Returns mpirun's exit status.
int run_with_restarts(const Options& options, PmixHost& server, const RankDefaults& defaults,
                      const PlanMaker& make_plan);

}  // namespace ferry::launcher
