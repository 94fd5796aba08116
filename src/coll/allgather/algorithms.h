// Allgather algorithms (MPI_Allgather, MPI_Allgatherv); each builds its
// rounds into a Schedule. The choice between them is made in
// coll/select.cc. sendbuf may be MPI_IN_PLACE: each rank's block is then
// already in place in recvbuf (MPI-3.1 §5.7).
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void allgather_ring(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    MPI_Count recvcount, const Datatype* recvtype);
void allgather_recursive_doubling(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype,
                                  void* recvbuf, MPI_Count recvcount, const Datatype* recvtype);
void allgather_bruck(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                     MPI_Count recvcount, const Datatype* recvtype);
void allgatherv_ring(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                     CountArray recvcounts, DisplArray displs, const Datatype* recvtype);

}  // namespace ferry::coll
