// How --report-bindings words a rank's binding: Open MPI 4.1's layout, so
// that whatever parses Open MPI's report reads Ferry's too.
#pragma once

#include <hwloc.h>

#include <string>

namespace ferry::launcher {

// What a binding counts as a core: hwloc's cores, or its PUs on the rare
// topology that has no core objects.
hwloc_obj_type_t core_type(hwloc_topology_t topology);

// The text after "MCW rank N ", e.g. for a rank bound to the first core of a
// 2-socket machine with 2 hardware threads per core:
//   "bound to socket 0[core 0[hwt 0-1]]: [BB/..][../..]"
// one bracket group per socket (package), '/' between its cores, one
// character per hardware thread ('B': in the binding). A null `cpus`, or one
// that holds every allowed cpu, reads as Open MPI's
//   "is not bound (or bound to all available processors)".
std::string describe_binding(hwloc_topology_t topology, hwloc_const_cpuset_t cpus);

}  // namespace ferry::launcher
