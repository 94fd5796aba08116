// The hosts of the Slurm allocation mpirun runs in (salloc, sbatch), as a
// host list: SLURM_JOB_NODELIST's hostlist expression ("node[01-03,7]")
// with SLURM_TASKS_PER_NODE's counts ("2(x3),1") as slots.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/hostfile.h"
#include "launcher/options.h"

namespace ferry::launcher {

// Nothing outside an allocation (neither SLURM_JOB_NODELIST nor the older
// SLURM_NODELIST set); else the hosts, with that variable's name as their
// origin, or a one-line error naming the malformed variable. Without
// SLURM_TASKS_PER_NODE each host has one slot.
std::optional<hosts::HostListResult> slurm_allocation(const EnvironmentLookup& lookup);

// Slurm's hostlist syntax: comma-separated names, each with any number of
// bracket groups of numbers and ranges ("rack[1-2]-n[01-02]"), expanded in
// order with the leftmost group varying slowest; a range keeps the width of
// its first number ("[08-10]": 08 09 10). Sets `error` to what is wrong.
std::vector<std::string> expand_hostlist(std::string_view expression, std::string& error);

}  // namespace ferry::launcher
