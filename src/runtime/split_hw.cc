// MPI_Comm_split_type by hardware (MPI-4.0 §7.4.2): MPI_COMM_TYPE_HW_GUIDED
// splits by the resource the info key "mpi_hw_resource_type" names;
// MPI_COMM_TYPE_HW_UNGUIDED by the largest level of the hierarchy that
// splits the communicator at all. Both read this host's hardware from hwloc
// and this process's binding (its cpuset); a process belongs to a resource
// when its cpuset lies inside the resource's. A process bound across two
// resources of the level, or whose level is unknown, gets MPI_COMM_NULL.
//
// A colour is (host, resource): the host's lowest world rank (the same at
// every rank of the host, from PMIx locality, as split_shared uses) times
// kResourcesPerHost plus the resource's logical index.
#include <hwloc.h>
#include <strings.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "coll/collectives.h"
#include "common/debug.h"
#include "runtime/comm_create.h"
#include "runtime/runtime.h"

namespace ferry::communicators {
namespace {

constexpr int kResourcesPerHost = 4096;

// The levels HW_UNGUIDED tries, largest first (MPI-4.0 §7.4.2 asks for the
// next smaller level each time). The host itself is the first.
constexpr hwloc_obj_type_t kLevels[] = {
    HWLOC_OBJ_MACHINE, HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
    HWLOC_OBJ_L1CACHE, HWLOC_OBJ_CORE,    HWLOC_OBJ_PU,
};
constexpr int kLevelCount = static_cast<int>(sizeof kLevels / sizeof kLevels[0]);

struct Hardware {
  hwloc_topology_t topology = nullptr;
  hwloc_bitmap_t binding = nullptr;  // where this process may run
};

// Loaded once: discovering the topology takes milliseconds.
Hardware& hardware() {
  static Hardware hw;
  static std::once_flag once;
  std::call_once(once, [] {
    if (hwloc_topology_init(&hw.topology) != 0) return;
    if (hwloc_topology_load(hw.topology) != 0) {
      hwloc_topology_destroy(hw.topology);
      hw.topology = nullptr;
      return;
    }
    hw.binding = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(hw.topology, hw.binding, HWLOC_CPUBIND_PROCESS) != 0)
      hwloc_bitmap_copy(hw.binding, hwloc_topology_get_topology_cpuset(hw.topology));
  });
  return hw;
}

int host_of_me() {
  const std::vector<int>& peers = runtime::job().local_peers;
  return peers.empty() ? runtime::job().rank : *std::min_element(peers.begin(), peers.end());
}

// This process's colour at resource `type`, or MPI_UNDEFINED.
int colour_at(hwloc_obj_type_t type) {
  Hardware& hw = hardware();
  if (hw.topology == nullptr) return MPI_UNDEFINED;
  if (type == HWLOC_OBJ_MACHINE) return host_of_me() * kResourcesPerHost;
  // NUMA nodes are memory children in hwloc 2: look them up by cpuset.
  hwloc_obj_t obj = nullptr;
  int n = hwloc_get_nbobjs_by_type(hw.topology, type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(hw.topology, type, static_cast<unsigned>(i));
    if (o->cpuset != nullptr && hwloc_bitmap_isincluded(hw.binding, o->cpuset)) {
      obj = o;
      break;
    }
  }
  if (obj == nullptr || obj->logical_index >= static_cast<unsigned>(kResourcesPerHost)) return MPI_UNDEFINED;
  return host_of_me() * kResourcesPerHost + static_cast<int>(obj->logical_index);
}

// "hwloc://Package", or a bare hwloc type name ("L3Cache", "socket").
bool parse_type(const std::string& value, hwloc_obj_type_t* type) {
  std::string name = value;
  const std::string prefix = "hwloc://";
  if (name.size() > prefix.size() && strncasecmp(name.c_str(), prefix.c_str(), prefix.size()) == 0)
    name = name.substr(prefix.size());
  return hwloc_type_sscanf(name.c_str(), type, nullptr, 0) == 0;
}

}  // namespace

Err split_hw_guided(Communicator* parent, int key, const std::string& resource_type, Communicator** out) {
  if (resource_type == "mpi_shared_memory") return split_shared(parent, key, out);
  hwloc_obj_type_t type;
  int colour = parse_type(resource_type, &type) ? colour_at(type) : MPI_UNDEFINED;
  FERRY_DEBUG(kComm, "MPI_COMM_TYPE_HW_GUIDED \"%s\": colour %d", resource_type.c_str(), colour);
  return split(parent, colour, key, out);
}

Err split_hw_unguided(Communicator* parent, int key, std::string* resource_type, Communicator** out) {
  *out = nullptr;
  resource_type->clear();
  // Everybody's colour at every level, then the first level that splits
  // the parent into strictly smaller parts (MPI-4.0 §7.4.2).
  std::vector<int> mine(kLevelCount);
  for (int l = 0; l < kLevelCount; ++l) mine[static_cast<size_t>(l)] = colour_at(kLevels[l]);
  std::vector<int> all(static_cast<size_t>(kLevelCount) * static_cast<size_t>(parent->size));
  const Datatype* ints = find_datatype(MPI_INT);
  if (Err e = coll::allgather(mine.data(), kLevelCount, ints, all.data(), kLevelCount, ints, parent)) return e;
  int chosen = -1;
  for (int l = 0; l < kLevelCount && chosen < 0; ++l) {
    std::vector<int> colours;
    for (int r = 0; r < parent->size; ++r) colours.push_back(all[static_cast<size_t>(r * kLevelCount + l)]);
    std::sort(colours.begin(), colours.end());
    // Strictly smaller: at least two colours, or someone left out.
    if (colours.front() != colours.back() || colours.front() == MPI_UNDEFINED) chosen = l;
  }
  int colour = chosen < 0 ? MPI_UNDEFINED : mine[static_cast<size_t>(chosen)];
  if (chosen >= 0 && colour != MPI_UNDEFINED)
    *resource_type = std::string("hwloc://") + hwloc_obj_type_string(kLevels[chosen]);
  FERRY_DEBUG(kComm, "MPI_COMM_TYPE_HW_UNGUIDED over %d ranks: %s", parent->size,
              resource_type->empty() ? "no smaller level" : resource_type->c_str());
  return split(parent, colour, key, out);
}

}  // namespace ferry::communicators
