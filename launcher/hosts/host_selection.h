// Which host list mpirun uses: the hostfiles (--hostfile, -f), narrowed by
// -H when both are given (Open MPI's rule: -H picks hosts out of the
// hostfile); -H alone; else the Slurm allocation; else none (this host).
#pragma once

#include <string>
#include <vector>

#include "common/hostfile.h"
#include "launcher/options.h"

namespace ferry::launcher {

// `error` is one line without the "mpirun: " prefix, e.g.
// "hosts:3: 'slots=x' is not a number of slots".
hosts::HostListResult select_hosts(const std::vector<std::string>& hostfiles,
                                   const std::vector<std::string>& host_lists, const EnvironmentLookup& lookup);

}  // namespace ferry::launcher
