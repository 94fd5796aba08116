// Hierarchical collectives (coll/hier) on a communicator that spans hosts
// (structure.h): the ranks of each host meet through their host's
// shared-memory segment (local.h), and one rank per host, its leader (or a
// rooted call's root, on the root's host), runs the message-based
// algorithm among the hosts (leaders.h). A host link then carries one
// message per host where the flat algorithms send one per rank.
//
// Chosen by the selection table (select.cc, algorithm "hierarchical") for
// blocking calls where Query::hierarchical holds; FERRY_COLL_HIER=on takes
// it whatever the table's bounds, off never.
//
// Cost, for H hosts of up to k ranks, n bytes, alpha_s/beta_s within a
// host through memory, alpha/beta between hosts:
//   allreduce:  2 local phases (k-1 combines of n at the leader, one copy
//               out per rank) + the leaders' allreduce on H ranks
//               (lg H alpha + n lg H beta for small n);
//   reduce:     local reduce + the leaders' reduce;
//   bcast:      the leaders' bcast + one local bcast;
//   barrier:    local arrival + the leaders' barrier (lg H rounds) + local
//               release;
//   allgather:  local gather + the leaders' allgatherv of host blocks
//               ((H-1) rounds of k n) + local bcast of all p n bytes.
// Reductions combine each host's ranks first, out of rank order, so they
// take commutative operations only (MPI-3.1 §5.9.1; select.cc skips
// "hierarchical" for the others), predefined ones (a user's function gets
// the datatype each rank passed, and the phases run on the signature's
// basic elements, reductions.cc) on data of one basic type.
//
// A wait that ends because the communicator was revoked returns
// MPIX_ERR_REVOKED at once (shm/wait.h), as coll/shm's do.
#pragma once

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "coll/hier/structure.h"

namespace ferry::coll::hier {

Err barrier(Hierarchy& h, Communicator* c);
Err bcast(Hierarchy& h, Communicator* c, void* buf, MPI_Count count, const Datatype* type, int root);
Err allreduce(Hierarchy& h, Communicator* c, const void* sendbuf, void* recvbuf, MPI_Count count,
              const Datatype* type, const Op* op);
Err reduce(Hierarchy& h, Communicator* c, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
           const Op* op, int root);
Err allgather(Hierarchy& h, Communicator* c, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype,
              void* recvbuf, MPI_Count recvcount, const Datatype* recvtype);

}  // namespace ferry::coll::hier
