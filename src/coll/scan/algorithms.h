// Scan and exscan algorithms (MPI_Scan, MPI_Exscan, MPI-3.1 §5.11); each
// appends its rounds to a schedule. src/coll/select.cc says which one a call
// uses.
//
// Common contract: `sendbuf` is the user's, or MPI_IN_PLACE (the input is
// then in `recvbuf`); count > 0; the communicator has at least 2 ranks.
// Exscan leaves rank 0's recvbuf untouched (MPI-3.1 §5.11.2: undefined).
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void scan_recursive_doubling(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                             const Op* op, bool exclusive);
void scan_pipelined_chain(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                          const Op* op, bool exclusive);

}  // namespace ferry::coll
