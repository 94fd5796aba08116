// Where each of a host's ranks is bound, after Open MPI 4.1's rmaps/binding
// rules (orte/mca/rmaps/base/rmaps_base_binding.c), reduced to one host:
//
// Level. --bind-to default binds nothing on an oversubscribed host; else it
// binds to the --map-by object when that is core, socket or numa (Open MPI
// binds to the mapping object when only --map-by is given); else to a core
// when the host has 2 ranks or fewer and to a socket otherwise. (Open MPI
// counts the job's ranks for the 2-rank rule; a host's are what we know
// here.) A socket is a package; a topology without packages falls back to
// NUMA nodes, then to the whole machine.
//
// Placement. --map-by core: rank i on the host's i-th core (round robin when
// there are more ranks). --map-by socket|numa: rank i on object i mod n.
// --map-by slot|node place ranks on hosts, not inside one: the host's ranks
// are cut into consecutive blocks, as even as possible, one per binding
// object (rank i on object i while there are enough objects). A rank is then
// bound to the binding object that holds its mapped object (binding coarser
// than mapping: map core, bind socket), or to the next of those inside it,
// round robin (finer: map socket, bind core takes the socket's next free
// core).
//
// Overload. More ranks on an object than it has cores is refused for an
// explicit --bind-to (Open MPI's "binding more processes than cpus on a
// resource"), allowed when the host is oversubscribed (Open MPI's
// --oversubscribe allows overloading too), and turns the default into no
// binding, as Open MPI does for a binding nobody asked for.
//
// Only the cpus hwloc reports as allowed are used, so that binding stays
// inside a cgroup or container cpuset.
#include "launcher/ranks/binding.h"

#include <memory>

#include "launcher/ranks/binding_report.h"

namespace ferry::launcher {
namespace {

struct BitmapFree {
  void operator()(hwloc_bitmap_t b) const { hwloc_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

enum class Level { kMachine, kCore, kSocket, kNuma };

// An object ranks are mapped or bound to, reduced to its allowed cpus.
struct Domain {
  Bitmap cpus;
  int cores = 0;     // cores with an allowed cpu among `cpus`
  std::string name;  // "core 3", "socket 1", ... for messages
};

int count_cores(hwloc_topology_t topology, hwloc_const_cpuset_t cpus) {
  int n = 0;
  hwloc_obj_type_t type = core_type(topology);
  for (hwloc_obj_t c = hwloc_get_next_obj_by_type(topology, type, nullptr); c != nullptr;
       c = hwloc_get_next_obj_by_type(topology, type, c))
    if (hwloc_bitmap_intersects(c->cpuset, cpus)) ++n;
  return n;
}

Domain make_domain(hwloc_topology_t topology, hwloc_const_cpuset_t cpus, std::string name) {
  Domain d;
  d.cpus.reset(hwloc_bitmap_dup(cpus));
  hwloc_bitmap_and(d.cpus.get(), d.cpus.get(), hwloc_topology_get_allowed_cpuset(topology));
  d.cores = count_cores(topology, d.cpus.get());
  d.name = std::move(name);
  return d;
}

// Objects of `type` with at least one allowed cpu, in logical order (NUMA
// nodes without cpus, such as memory expanders, drop out here).
std::vector<Domain> objects(hwloc_topology_t topology, hwloc_obj_type_t type, const char* label) {
  std::vector<Domain> out;
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topology, type, nullptr); o != nullptr;
       o = hwloc_get_next_obj_by_type(topology, type, o)) {
    Domain d = make_domain(topology, o->cpuset, label + std::to_string(o->logical_index));
    if (!hwloc_bitmap_iszero(d.cpus.get())) out.push_back(std::move(d));
  }
  return out;
}

std::vector<Domain> domains(hwloc_topology_t topology, Level level) {
  std::vector<Domain> out;
  switch (level) {
    case Level::kCore:
      return objects(topology, core_type(topology), core_type(topology) == HWLOC_OBJ_CORE ? "core " : "hwt ");
    case Level::kSocket:
      out = objects(topology, HWLOC_OBJ_PACKAGE, "socket ");
      if (out.empty()) out = objects(topology, HWLOC_OBJ_NUMANODE, "NUMA node ");
      break;
    case Level::kNuma:
      out = objects(topology, HWLOC_OBJ_NUMANODE, "NUMA node ");
      break;
    case Level::kMachine:
      break;
  }
  if (out.empty()) out.push_back(make_domain(topology, hwloc_topology_get_allowed_cpuset(topology), "the machine"));
  return out;
}

Level map_level(MapBy map_by) {
  switch (map_by) {
    case MapBy::kCore: return Level::kCore;
    case MapBy::kSocket: return Level::kSocket;
    case MapBy::kNuma: return Level::kNuma;
    case MapBy::kSlot:
    case MapBy::kNode: return Level::kMachine;
  }
  return Level::kMachine;
}

// The level Open MPI's default binds to (see the top of the file).
Level default_level(MapBy map_by, int local_ranks) {
  Level mapped = map_level(map_by);
  if (mapped != Level::kMachine) return mapped;
  return local_ranks <= 2 ? Level::kCore : Level::kSocket;
}

// The binding objects a rank mapped to `where` may take: those inside it,
// else those overlapping it (the one holding it, when binding is coarser).
std::vector<size_t> candidates(const std::vector<Domain>& targets, const Domain& where) {
  std::vector<size_t> inside, overlapping;
  for (size_t t = 0; t < targets.size(); ++t) {
    if (hwloc_bitmap_isincluded(targets[t].cpus.get(), where.cpus.get())) inside.push_back(t);
    if (hwloc_bitmap_intersects(targets[t].cpus.get(), where.cpus.get())) overlapping.push_back(t);
  }
  return inside.empty() ? overlapping : inside;
}

// For each rank, the index in `targets` of the object it is bound to.
std::vector<size_t> place(const std::vector<Domain>& maps, const std::vector<Domain>& targets, bool blocks,
                          int local_ranks) {
  std::vector<size_t> chosen, placed(maps.size(), 0);
  for (int r = 0; r < local_ranks; ++r) {
    size_t m = size_t(r) % maps.size();
    size_t k = placed[m]++;
    std::vector<size_t> c = candidates(targets, maps[m]);
    size_t n = size_t(local_ranks);
    // Blocks: consecutive ranks share an object, as slot mapping fills hosts.
    size_t pick = blocks && n > c.size() ? k * c.size() / n : k % c.size();
    chosen.push_back(c[pick]);
  }
  return chosen;
}

cpu_set_t to_cpu_set(hwloc_const_cpuset_t cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int i = hwloc_bitmap_first(cpus); i >= 0; i = hwloc_bitmap_next(cpus, i))
    if (i < CPU_SETSIZE) CPU_SET(i, &set);
  return set;
}

const char* level_option(Level level) {
  switch (level) {
    case Level::kCore: return "core";
    case Level::kSocket: return "socket";
    case Level::kNuma: return "numa";
    case Level::kMachine: break;
  }
  return "none";
}

BindingResult unbound(hwloc_topology_t topology, int local_ranks) {
  BindingResult result;
  result.bindings.resize(size_t(local_ranks));
  for (RankBinding& b : result.bindings) {
    CPU_ZERO(&b.cpus);
    b.description = describe_binding(topology, nullptr);
  }
  return result;
}

}  // namespace

BindingResult compute_bindings(hwloc_topology_t topology, MapBy map_by, BindTo bind_to, int local_ranks,
                               bool oversubscribed) {
  if (local_ranks < 0) return {{}, "mpirun: invalid number of ranks on a host: " + std::to_string(local_ranks)};
  bool by_default = bind_to == BindTo::kDefault;
  if (bind_to == BindTo::kNone || (by_default && oversubscribed)) return unbound(topology, local_ranks);
  Level level = by_default                     ? default_level(map_by, local_ranks)
                : bind_to == BindTo::kCore     ? Level::kCore
                : bind_to == BindTo::kSocket   ? Level::kSocket
                                               : Level::kNuma;

  std::vector<Domain> maps = domains(topology, map_level(map_by));
  std::vector<Domain> targets = domains(topology, level);
  std::vector<size_t> chosen = place(maps, targets, map_level(map_by) == Level::kMachine, local_ranks);

  std::vector<int> load(targets.size(), 0);
  for (size_t t : chosen) ++load[t];
  for (size_t t = 0; t < targets.size(); ++t) {
    if (load[t] <= targets[t].cores || oversubscribed) continue;
    if (by_default) return unbound(topology, local_ranks);
    return {{},
            "mpirun: --bind-to " + std::string(level_option(level)) + " would put " + std::to_string(load[t]) +
                " ranks on " + targets[t].name + ", which has " + std::to_string(targets[t].cores) +
                (targets[t].cores == 1 ? " core" : " cores") +
                "; use --bind-to none, or --oversubscribe to share cores"};
  }

  BindingResult result;
  for (size_t t : chosen) {
    RankBinding b;
    b.bound = true;
    b.cpus = to_cpu_set(targets[t].cpus.get());
    b.description = describe_binding(topology, targets[t].cpus.get());
    result.bindings.push_back(std::move(b));
  }
  return result;
}

}  // namespace ferry::launcher
