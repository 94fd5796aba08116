// Allreduce algorithms (MPI_Allreduce, MPI-3.1 §5.9.6). Each appends its rounds to a
// schedule; src/coll/select.cc says which one a call uses.
//
// Common contract: `sendbuf` is the user's, or MPI_IN_PLACE (the input is
// then in `recvbuf`); count > 0; the schedule's communicator has at least 2
// ranks. Every rank ends with the same bits in `recvbuf`.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void allreduce_recursive_doubling(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count,
                                  const Datatype* type, const Op* op);
void allreduce_ring(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                    const Op* op);
void allreduce_tree(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                    const Op* op);
void allreduce_rabenseifner(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                            const Op* op);

}  // namespace ferry::coll
