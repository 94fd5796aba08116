// coll/hier's phase among one member per host: the selection table's
// message-based algorithm (select.cc) for that many ranks and bytes, as a
// Schedule over those members of the communicator (schedule.h), which
// takes the call's one collective tag. Ranks outside the phase take the
// tag with hier::take_tag instead.
#pragma once

#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "coll/count_array.h"

namespace ferry::coll::hier {

struct Leaders {
  Communicator* comm;
  std::vector<int> members;  // communicator ranks, one per host, in host order
  int me;                    // this rank's index in members
};

Err leaders_allreduce(const Leaders& l, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                      const Op* op);
Err leaders_reduce(const Leaders& l, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                   const Op* op, int root);
Err leaders_bcast(const Leaders& l, void* buf, MPI_Count count, const Datatype* type, int root);
Err leaders_barrier(const Leaders& l);
// Each member's `bytes[i]` bytes, at `displs[i]` of `all`; mine already there.
Err leaders_allgatherv(const Leaders& l, void* all, CountArray bytes, DisplArray displs);

}  // namespace ferry::coll::hier
