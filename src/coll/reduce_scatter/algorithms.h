// Reduce_scatter algorithms (MPI_Reduce_scatter, MPI_Reduce_scatter_block,
// MPI-3.1 §5.10); each appends its rounds to a schedule. The block form is
// the general one with equal counts. src/coll/select.cc says which one a
// call uses.
//
// Common contract: `sendbuf` is the user's, or MPI_IN_PLACE (the whole input
// is then in `recvbuf`, and the result goes to its start); recvcounts has
// one entry per rank, and their sum is > 0; the communicator has at least 2
// ranks. recvcounts is read while building only.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void reduce_scatter_pairwise(Schedule& s, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                             const Datatype* type, const Op* op);
void reduce_scatter_recursive_halving(Schedule& s, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                                      const Datatype* type, const Op* op);

}  // namespace ferry::coll
