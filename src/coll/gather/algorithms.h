// Gather algorithms (MPI_Gather, MPI_Gatherv); each builds its rounds into a
// Schedule. The choice between them is made in coll/select.cc. At the root
// sendbuf may be MPI_IN_PLACE: its block is then already in recvbuf
// (MPI-3.1 §5.5). The receive arguments matter at the root only.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void gather_binomial(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                     MPI_Count recvcount, const Datatype* recvtype, int root);
void gather_linear(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   MPI_Count recvcount, const Datatype* recvtype, int root);
void gatherv_linear(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root);

}  // namespace ferry::coll
