// Where each rank runs: mpirun's host list (hostfile, -H, a Slurm
// allocation, or this host alone) and the mapping policy turned into one
// node per host, in host-list order, with the ranks it runs.
#pragma once

#include <string>
#include <vector>

#include "common/hostfile.h"
#include "launcher/hosts/launch_policy.h"

namespace ferry::launcher {

struct PlacedNode {
  hosts::HostEntry host;
  bool local = false;        // this host: mpirun starts the ranks itself
  std::vector<int> ranks;    // global ranks, ascending
};

struct Placement {
  std::vector<PlacedNode> nodes;  // only hosts that run ranks
  std::vector<int> node_of_rank;  // index into nodes
  bool oversubscribed = false;    // some host got more ranks than slots
};

struct PlacementRequest {
  std::vector<hosts::HostEntry> hosts;  // empty: this host, unlimited slots
  int num_ranks = 0;                    // 0: one per slot (Open MPI)
  int ranks_per_node = 0;               // -ppn/--npernode; 0: not given
  MapBy map_by = MapBy::kSlot;
  bool oversubscribe = false;
};

struct PlacementResult {
  Placement placement;
  std::string error;  // one line starting "mpirun: "
};

// `is_local(name)` says whether a host name means this host.
PlacementResult place_ranks(const PlacementRequest& request, bool (*is_local)(const std::string&));

// localhost, 127.x, ::1, this host's name (short or full) or one of its
// addresses.
bool is_this_host(const std::string& name);

}  // namespace ferry::launcher
