// Creating communicators (MPI-3.1 §6.4.2): collective operations that agree
// on a context id (base/context_id.h) over the parent's collectives, so they
// sit above the collectives, in the runtime; the objects they make are the
// base layer's (base/communicator.h).
#pragma once

#include "base/communicator.h"
#include "base/error.h"
#include "base/group.h"
#include "base/info.h"
#include "base/topology.h"

#include <string>
#include <vector>

namespace ferry {
struct Request;
}

namespace ferry::communicators {

// Each is collective over the parent (create_group: over the group), agrees
// on a context id, and returns the new communicator in *out, or nullptr
// where the process gets MPI_COMM_NULL. The new communicator inherits the
// parent's error handler (MPI-3.1 §8.3); dup also its attributes (through
// their copy callbacks) and info hints.
// `hints`: the new communicator's info hints (MPI_Comm_dup_with_info), or
// nullptr for the parent's.
Err dup(Communicator* parent, const Info* hints, Communicator** out);
// MPI_Comm_idup: *out has its handle at once and becomes usable when
// *request completes (MPI-3.1 §6.4.2). `hints`: MPI_Comm_idup_with_info's
// (MPI-4.0 §7.4.2), or nullptr for the parent's.
Err idup(Communicator* parent, Communicator** out, Request** request, const Info* hints = nullptr);
Err split(Communicator* parent, int color, int key, Communicator** out);
// MPI_COMM_TYPE_SHARED: the ranks on this host (PMIx locality).
Err split_shared(Communicator* parent, int key, Communicator** out);
// MPI_COMM_TYPE_HW_GUIDED and _HW_UNGUIDED (MPI-4.0 §7.4.2,
// runtime/split_hw.cc). `resource_type`: the value of the info key
// "mpi_hw_resource_type" ("mpi_shared_memory", "hwloc://Package", ...); the
// unguided split says which level it split by ("" when it found none and
// every process gets MPI_COMM_NULL).
Err split_hw_guided(Communicator* parent, int key, const std::string& resource_type, Communicator** out);
Err split_hw_unguided(Communicator* parent, int key, std::string* resource_type, Communicator** out);
Err create(Communicator* parent, Group* group, Communicator** out);
Err create_group(Communicator* parent, Group* group, int tag, Communicator** out);

// ---- From groups alone (MPI-4.0 §7.4.2, runtime/comm_from_group.cc) ---------
// MPI_Comm_create_from_group: collective over `group`, whose members all
// pass the same `stringtag`; the caller must be a member.
Err create_from_group(Group* group, const std::string& stringtag, Communicator** out);
// MPI_Intercomm_create_from_groups (MPI-4.0 §7.6.2): collective over both
// (disjoint) groups.
Err intercomm_create_from_groups(Group* local, int local_leader, Group* remote, int remote_leader,
                                 const std::string& stringtag, Communicator** out);

// ---- Intercommunicators (MPI-3.1 §6.6, runtime/intercomm.cc) ----------------
// MPI_Intercomm_create: collective over local_comm; `peer_comm` and
// `remote_leader` matter at the local leader only.
Err intercomm_create(Communicator* local_comm, int local_leader, Communicator* peer_comm, int remote_leader,
                     int tag, Communicator** out);
// MPI_Comm_accept, _connect, _spawn and _join (runtime/ports.cc): the
// leaders already reach each other over `bridge` (remote_leader is the
// other's rank there, `tag` tells this bridge's traffic apart), and every
// process knows the remote group (`remote`, peer indices). Collective over
// local_comm and the remote group.
Err intercomm_from_bridge(Communicator* local_comm, int local_leader, Communicator* bridge, int remote_leader,
                          int tag, const groups::Members& remote, Communicator** out);
// MPI_Intercomm_merge: collective over both groups.
Err intercomm_merge(Communicator* inter, bool high, Communicator** out);
// The intercommunicator object on `slot` (context_ids::kNoSlot: decided
// later) between `group` (one reference, the caller's) and the remote group
// `remote` (world ranks), with `local` as its hidden intracommunicator.
Communicator* make_inter(Communicator* parent, Group* group, const groups::Members& remote, uint32_t slot,
                         Communicator* local);
// MPI_Comm_dup, MPI_Comm_split and MPI_Comm_create of an intercommunicator
// (dup(), split() and create() call them): collective over both groups.
Err dup_inter(Communicator* inter, Communicator** out);
Err split_inter(Communicator* inter, int color, int key, Communicator** out);
Err create_inter(Communicator* inter, Group* group, Communicator** out);

// ---- Process topologies (MPI-3.1 §7) ----------------------------------------
// Each is collective over the parent and returns a new communicator that
// carries the topology (no attributes are copied). `reorder` is accepted and
// not acted on: ranks keep their order (README, "Process topologies").
// MPI_Cart_create: the first prod(dims) ranks of the parent form the grid;
// the others get MPI_COMM_NULL (*out == nullptr).
Err cart_create(Communicator* parent, std::vector<int> dims, std::vector<bool> periods, Communicator** out);
// MPI_Cart_sub: one communicator per slice that keeps the `remain` dimensions.
Err cart_sub(Communicator* parent, const std::vector<bool>& remain, Communicator** out);
// MPI_Graph_create: the first index.size() ranks form the graph.
Err graph_create(Communicator* parent, std::vector<int> index, std::vector<int> edges, Communicator** out);
// MPI_Dist_graph_create_adjacent: `adjacency` holds this process's sources,
// destinations and weights (kind and the cartesian fields are ignored).
Err dist_graph_create_adjacent(Communicator* parent, Topology adjacency, Communicator** out);
// MPI_Dist_graph_create: this process names edges[i] = (source, destination,
// weight); each process learns the edges that start or end at it.
struct Edge {
  int source;
  int destination;
  int weight;
};
Err dist_graph_create(Communicator* parent, const std::vector<Edge>& edges, bool weighted, Communicator** out);

}  // namespace ferry::communicators
