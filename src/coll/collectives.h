// The collective operations as core functions: arguments already validated,
// handles already translated. src/api calls these; so does the runtime
// itself (communicator construction gathers colours and keys, agrees on
// context ids).
//
// Each function picks an algorithm through the selection table
// (coll/select.h) and runs its schedule as `how` says (Launch below).
// Counts are MPI_Count and count arrays are views over int or MPI_Count
// (coll/count_array.h): the int and the large-count (_c) API calls share
// this core.
#pragma once

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "base/request.h"
#include "coll/count_array.h"

namespace ferry::coll {

// How a collective call runs (MPI-4.0 §6.12, §6.13): to its end (the
// blocking calls); started now, its request in *request (MPI_I...); or
// only built, *request an inactive persistent request that each MPI_Start
// runs again (MPI_..._init). Algorithm choice, the schedule and its scratch
// are done once, at the call, in every form.
struct Launch {
  enum class Form : uint8_t { kBlocking, kNonblocking, kPersistent };
  Form form = Form::kBlocking;
  Request** request = nullptr;
};
inline Launch nonblocking(Request** request) { return {Launch::Form::kNonblocking, request}; }
inline Launch persistent(Request** request) { return {Launch::Form::kPersistent, request}; }

// Data movement (MPI-3.1 §5.3-5.8) and barrier. sendbuf may be MPI_IN_PLACE
// where the standard allows it (gather(v) at the root, allgather(v),
// alltoall(v,w)); so may recvbuf for scatter(v) at the root. Arguments that
// are not significant on a rank (the receive side of gather on non-roots,
// ...) are not looked at there.
Err barrier(Communicator* c, Launch how = {});
Err bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how = {});
Err gather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
           const Datatype* recvtype, int root, Communicator* c, Launch how = {});
Err gatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, CountArray recvcounts,
            DisplArray displs, const Datatype* recvtype, int root, Communicator* c, Launch how = {});
Err scatter(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
            const Datatype* recvtype, int root, Communicator* c, Launch how = {});
Err scatterv(const void* sendbuf, CountArray sendcounts, DisplArray displs, const Datatype* sendtype, void* recvbuf,
             MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how = {});
Err allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
              const Datatype* recvtype, Communicator* c, Launch how = {});
Err allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, CountArray recvcounts,
               DisplArray displs, const Datatype* recvtype, Communicator* c, Launch how = {});
Err alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
             const Datatype* recvtype, Communicator* c, Launch how = {});
Err alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype, void* recvbuf,
              CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype, Communicator* c, Launch how = {});

// Displacements in bytes, a datatype per peer.
Err alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* const sendtypes[],
              void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* const recvtypes[],
              Communicator* c, Launch how = {});

// Reductions (MPI-3.1 §5.9-5.11). sendbuf may be MPI_IN_PLACE where the
// standard allows it (allreduce, reduce at the root, reduce_scatter(_block),
// scan, exscan); `op` has passed check_op for `type`.
Err allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, Communicator* c,
              Launch how = {});

// MPI_Iallreduce, for the runtime's own agreements (runtime/comm_idup.cc).
inline Err iallreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                      Communicator* c, Request** request) {
  return allreduce(sendbuf, recvbuf, count, type, op, c, nonblocking(request));
}
// Not an MPI operation: on an intercommunicator, the reduction over every
// process of both groups, at every process (MPI's intercommunicator
// allreduce gives each group the other group's). For the runtime's
// context-id agreements; `op` must be commutative.
Err iallreduce_both_groups(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                           Communicator* inter, Request** request);
Err reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
           Communicator* c, Launch how = {});
Err reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type, const Op* op,
                   Communicator* c, Launch how = {});
Err reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type, const Op* op,
                         Communicator* c, Launch how = {});
Err scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, Communicator* c,
         Launch how = {});
Err exscan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, Communicator* c,
           Launch how = {});

// Neighbourhood collectives (MPI-3.1 §7.6) on a communicator with a topology
// (the caller has checked that it has one). Block i of recvbuf
// comes from in-neighbour i, block j of sendbuf (all of sendbuf for the
// allgathers) goes to out-neighbour j.
Err neighbor_allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                       MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how = {});
Err neighbor_allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                        CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c,
                        Launch how = {});
Err neighbor_alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                      MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how = {});
Err neighbor_alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                       void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype,
                       Communicator* c, Launch how = {});
// Displacements in bytes, a datatype per neighbour.
Err neighbor_alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                       const Datatype* const sendtypes[], void* recvbuf, CountArray recvcounts,
                       DisplArray rdispls, const Datatype* const recvtypes[], Communicator* c,
                       Launch how = {});

}  // namespace ferry::coll
