// Peer indices: how the layers below name a process (groups' member lists,
// routes, the transports). World ranks 0..size-1 come first; processes of
// other jobs that this one meets through MPI_Comm_spawn, MPI_Comm_accept,
// MPI_Comm_connect or MPI_Comm_join (MPI-3.1 §10) get the next indices, in
// the order they are met, and keep them for the life of the process.
//
// Member lists that cross jobs travel as process names (job namespace and
// rank, pmi::ProcessName), since another process numbers peers its own way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "pmi/dynamic.h"

namespace ferry::runtime {

// The peer index of `name`, adopting the process if it is new: the first
// transport that reaches a process of another job carries its traffic.
Err adopt(const pmi::ProcessName& name, int* index);
// The name behind a peer index.
pmi::ProcessName name_of(int index);
// The peer index of rank `rank` of the job tagged `job` (transport::job_tag),
// or -1 if not adopted (transports ask this of a connecting process).
int adopted_index(uint32_t job, int rank);

// A member list written as names, and read back into peer indices (adopting
// the processes that are new): "nspace rank" lines.
std::string names_of(const std::vector<int>& members);
Err adopt_all(const std::string& names, std::vector<int>* members);

}  // namespace ferry::runtime
