// Collectives on intercommunicators (MPI-3.1 §5.2.2): each group's data goes
// to the other group. Rooted operations name the root as MPI_ROOT (the root
// itself), MPI_PROC_NULL (the rest of its group) or the root's rank in the
// remote group (every process of the other group).
//
// Each is one schedule (so the nonblocking forms come free) built from local
// phases on the intercommunicator's hidden local intracommunicator
// (Schedule::use_local, with the intracommunicator algorithms) and messages
// across. Intercommunicators carry setup traffic and a library's halves
// talking, rarely bulk data; the algorithms are the plain ones MPICH uses.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

// Local barrier, the leaders (local rank 0 of each group) swap a signal,
// local broadcast of it. Cost: 2 local barriers' worth + alpha.
void inter_barrier(Schedule& s);
// The root sends to the remote leader, which broadcasts in its group.
void inter_bcast(Schedule& s, void* buf, MPI_Count count, const Datatype* type, int root);
// The sending group reduces to its leader, which sends to the root.
void inter_reduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                  int root);
// Each group reduces to its leader, the leaders swap, each broadcasts what
// it received: every process gets the reduction of the other group's data.
void inter_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                     const Op* op);
// Each group reduces to its leader, the leaders swap, each scatters what it
// received by the local recvcounts.
void inter_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                          const Datatype* type, const Op* op);
// Not an MPI operation: the reduction over every process of both groups, at
// every process (the leaders combine both groups' results, then broadcast).
// For context-id agreements; `op` must be commutative (both leaders combine
// in their own order).
void inter_allreduce_both_groups(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                                 const Op* op);
// Gather and scatter (and their v forms): straight between the root and
// every process of the other group, in one round.
void inter_gatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root);
void inter_scatterv(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray displs,
                    const Datatype* sendtype, void* recvbuf, MPI_Count recvcount, const Datatype* recvtype, int root);
// Allgather(v) and alltoall(v,w): every process exchanges with every process
// of the other group, in one round. Block j is remote rank j's.
void inter_allgatherv(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                      CountArray recvcounts, DisplArray displs, const Datatype* recvtype);
void inter_alltoallw(Schedule& s, const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                     const Datatype* const sendtypes[], void* recvbuf, CountArray recvcounts, DisplArray rdispls,
                     const Datatype* const recvtypes[]);

}  // namespace ferry::coll
