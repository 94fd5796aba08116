// The --report-bindings text, after Open MPI 4.1's opal_hwloc_base_cset2str
// (the "socket 0[core 1[hwt 0]]" list) and opal_hwloc_base_cset2mapstr (the
// "[./B][./.]" map). Indexes are logical: socket by package order, core
// within its socket, hwt within its core, as Open MPI prints them.
#include "launcher/ranks/binding_report.h"

#include <vector>

namespace ferry::launcher {
namespace {

constexpr const char* kNotBound = "is not bound (or bound to all available processors)";

// Open MPI's sockets are packages; a topology without any (some VMs) is
// shown as one socket holding everything.
std::vector<hwloc_obj_t> sockets(hwloc_topology_t topology) {
  std::vector<hwloc_obj_t> out;
  for (hwloc_obj_t p = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PACKAGE, nullptr); p != nullptr;
       p = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PACKAGE, p))
    out.push_back(p);
  if (out.empty()) out.push_back(hwloc_get_root_obj(topology));
  return out;
}

// Objects of `type` whose cpus all lie in `set`, in logical order.
std::vector<hwloc_obj_t> objects_inside(hwloc_topology_t topology, hwloc_const_cpuset_t set,
                                        hwloc_obj_type_t type) {
  std::vector<hwloc_obj_t> out;
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topology, type, nullptr); o != nullptr;
       o = hwloc_get_next_obj_by_type(topology, type, o))
    if (!hwloc_bitmap_iszero(o->cpuset) && hwloc_bitmap_isincluded(o->cpuset, set)) out.push_back(o);
  return out;
}

// "socket S[core C[hwt H]]" for each run of consecutive bound hwts of a
// core ("hwt 0-1" for a run of two), as Open MPI lists them.
void list_core(std::string& out, int socket, int core, const std::vector<bool>& bound) {
  for (size_t h = 0; h < bound.size(); ++h) {
    if (!bound[h]) continue;
    size_t last = h;
    while (last + 1 < bound.size() && bound[last + 1]) ++last;
    if (!out.empty()) out += ", ";
    out += "socket " + std::to_string(socket) + "[core " + std::to_string(core) + "[hwt " + std::to_string(h);
    if (last > h) out += "-" + std::to_string(last);
    out += "]]";
    h = last;
  }
}

}  // namespace

hwloc_obj_type_t core_type(hwloc_topology_t topology) {
  return hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

std::string describe_binding(hwloc_topology_t topology, hwloc_const_cpuset_t cpus) {
  // Open MPI compares with the cpus it may use: a binding to all of them
  // restricts nothing.
  if (cpus == nullptr || hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(topology), cpus))
    return kNotBound;
  std::string list, map;
  std::vector<hwloc_obj_t> all_sockets = sockets(topology);
  for (size_t s = 0; s < all_sockets.size(); ++s) {
    map += '[';
    std::vector<hwloc_obj_t> cores = objects_inside(topology, all_sockets[s]->cpuset, core_type(topology));
    for (size_t c = 0; c < cores.size(); ++c) {
      if (c > 0) map += '/';
      std::vector<bool> bound;
      for (hwloc_obj_t pu : objects_inside(topology, cores[c]->cpuset, HWLOC_OBJ_PU)) {
        bound.push_back(hwloc_bitmap_isset(cpus, pu->os_index));
        map += bound.back() ? 'B' : '.';
      }
      list_core(list, int(s), int(c), bound);
    }
    map += ']';
  }
  return "bound to " + list + ": " + map;
}

}  // namespace ferry::launcher
