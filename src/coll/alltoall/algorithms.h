// Alltoall algorithms (MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw); each
// builds its rounds into a Schedule. The choice between them is made in
// coll/select.cc. sendbuf may be MPI_IN_PLACE: the data to send is then
// taken from recvbuf, with the receive counts and types, and replaced by
// the data received (MPI-3.1 §5.8).
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void alltoall_pairwise(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                       MPI_Count recvcount, const Datatype* recvtype);
void alltoall_bruck(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                    MPI_Count recvcount, const Datatype* recvtype);
void alltoallv_pairwise(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                        const Datatype* sendtype, void* recvbuf, CountArray recvcounts, DisplArray rdispls,
                        const Datatype* recvtype);
// Displacements in bytes, a datatype per peer.
void alltoallw_pairwise(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                        const Datatype* const sendtypes[], void* recvbuf, CountArray recvcounts,
                        DisplArray rdispls, const Datatype* const recvtypes[]);

}  // namespace ferry::coll
