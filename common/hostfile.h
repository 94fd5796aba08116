// Host lists: hostfiles in Open MPI's dialect ("node1 slots=4 max_slots=8",
// comments after '#', blank lines) and MPICH/Hydra's ("node1:4"), and the
// -H/--host list ("h1:2,h2"). Shared by mpirun and the node daemon; parsing
// only, no name resolution (an unknown host is found when it is contacted).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ferry::hosts {

struct HostEntry {
  std::string name;      // as written: a host name, ssh alias or address
  int slots = 1;         // ranks placed here before the next host is used
  int max_slots = 0;     // hard limit even with --oversubscribe; 0: none
  bool slots_given = false;  // slots written explicitly (not the default 1)
  std::string origin;    // where it was written, for messages: "hosts:3", "-H"
};

// Either hosts or a one-line error naming the file and line
// ("hosts:3: 'slots=x' is not a number of slots").
struct HostListResult {
  std::vector<HostEntry> hosts;
  std::string error;
};

// A host named twice is merged into one entry (slots added), in the order
// of first appearance, as Open MPI does.
HostListResult parse_hostfile(std::string_view text, std::string_view file_name);
HostListResult read_hostfile(const std::string& path);
HostListResult parse_host_option(std::string_view spec);  // -H h1:2,h2

// Appends `entry`, or merges it into the entry of the same name: slots are
// added, a later max_slots replaces an earlier one. Returns "" or the
// reason the merged host is impossible, starting with entry.origin.
std::string add_host(std::vector<HostEntry>& hosts, const HostEntry& entry);

}  // namespace ferry::hosts
