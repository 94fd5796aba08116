// Reduce algorithms (MPI_Reduce, MPI-3.1 §5.9.1); each appends its rounds to
// a schedule. src/coll/select.cc says which one a call uses.
//
// Common contract: `sendbuf` is the user's, or MPI_IN_PLACE at the root (the
// input is then in the root's `recvbuf`); `recvbuf` matters at the root
// only; count > 0; the communicator has at least 2 ranks.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void reduce_binomial(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                     const Op* op, int root);
void reduce_scatter_gather(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                           const Op* op, int root);
// Two ranks only; commutative operations only.
void reduce_halves(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                   const Op* op, int root);

}  // namespace ferry::coll
