// Scatter algorithms (MPI_Scatter, MPI_Scatterv); each builds its rounds
// into a Schedule. The choice between them is made in coll/select.cc. At
// the root recvbuf may be MPI_IN_PLACE: the root's block then stays where
// it is in sendbuf (MPI-3.1 §5.6). The send arguments matter at the root
// only.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void scatter_binomial(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                      MPI_Count recvcount, const Datatype* recvtype, int root);
void scatter_linear(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    MPI_Count recvcount, const Datatype* recvtype, int root);
void scatterv_linear(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray displs,
                     const Datatype* sendtype, void* recvbuf, MPI_Count recvcount, const Datatype* recvtype, int root);

}  // namespace ferry::coll
