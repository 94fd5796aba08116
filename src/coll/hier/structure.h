// The host structure of a communicator that spans hosts (coll/hier),
// computed once, at its first blocking collective that could run
// hierarchically or whose choice depends on where the hosts are (scans:
// Query::chain_crossings), and kept with the communicator
// (shm::hierarchy_slot).
//
// Which ranks share a host is only known to the ranks of that host
// (shm::shares_memory), so the first use costs one allgather over the
// communicator of each rank's host leader (the lowest rank sharing its
// host), then shm::segment_among's bcast within each host and allreduce
// over all: every rank learns the same hosts, and whether each host with
// 2 or more ranks mapped its segment. Hosts are ordered by their leader,
// a host's ranks ascending.
//
// A phase among the leaders is a Schedule over those members of the
// communicator (schedule.h), on its collective context with the call's
// one tag; ranks that are not in it take the tag too (take_tag), so every
// rank's tags stay in step.
#pragma once

#include <memory>
#include <vector>

#include "base/communicator.h"
#include "coll/collectives.h"
#include "coll/shm/segment.h"

namespace ferry::coll::hier {

struct Hierarchy {
  std::vector<std::vector<int>> hosts;  // communicator ranks of each host
  std::vector<int> host_of;             // communicator rank -> index in hosts
  std::vector<int> local_index;         // communicator rank -> its index within its host
  int me = 0;       // this rank's communicator rank
  int my_host = 0;
  // How many times a chain along the ranks (0, 1, ..., p - 1) goes from one
  // host to another: hosts - 1 where each host's ranks are consecutive
  // (mpirun's default placement, by slot), up to p - 1 where they are dealt
  // to the hosts in turn.
  int chain_crossings = 0;
  // My host's segment (nullptr where I am alone on my host: no local phase).
  std::unique_ptr<shm::CommSegment> local;

  const std::vector<int>& locals() const { return hosts[static_cast<size_t>(my_host)]; }
  int my_local() const { return local_index[static_cast<size_t>(me)]; }
  bool leader() const { return my_local() == 0; }
  // One member per host, in host order: each host's first rank, but
  // `rank` for its own host (a rooted call's root stands for its host).
  std::vector<int> representatives(int rank) const;
};

// The hierarchy of `c` if a call launched as `how` could run there: made
// now at the first such call (collective over c, every rank alike);
// nullptr where it cannot (not blocking, one host, no host with 2 or more
// ranks, a segment that could not be made, FERRY_COLL_HIER=off, ...).
Hierarchy* hierarchy_for(Communicator* c, Launch how);

// FERRY_COLL_HIER=on: wherever it can run, whatever the table says.
bool forced();

// Advances c's collective tag for a rank that builds no schedule in a call
// whose leaders' phase takes one.
inline void take_tag(Communicator* c) { (void)c->next_collective_tag(); }

}  // namespace ferry::coll::hier
