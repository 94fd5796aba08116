// Binding a host's ranks to cores, sockets or NUMA nodes with hwloc, and the
// --report-bindings line for each.
#pragma once

#include <hwloc.h>
#include <sched.h>

#include <string>
#include <vector>

#include "launcher/hosts/launch_policy.h"

namespace ferry::launcher {

struct RankBinding {
  bool bound = false;  // false: the rank may run anywhere
  cpu_set_t cpus;      // when bound: what sched_setaffinity gets
  // For --report-bindings, Open MPI's layout, e.g.
  // "bound to socket 0[core 1[hwt 0]]: [./B][./.]", or Open MPI's
  // "is not bound (or bound to all available processors)" (binding_report.h).
  std::string description;
};

struct BindingResult {
  std::vector<RankBinding> bindings;  // one per local rank, local-rank order
  std::string error;                  // one line starting "mpirun: "
};

// Bindings for `local_ranks` ranks on the host whose topology is given.
// `oversubscribed`: more ranks than slots on this host (the default then
// binds nothing, as Open MPI does).
BindingResult compute_bindings(hwloc_topology_t topology, MapBy map_by, BindTo bind_to, int local_ranks,
                               bool oversubscribed);

}  // namespace ferry::launcher
