// The collective operations as core functions: arguments already validated,
// handles already translated. src/api calls these; so does the runtime
// itself (communicator construction gathers colours and keys, agrees on
// context ids).
//
// Each function picks an algorithm through the selection table
// (coll/select.h) and runs its schedule to the end; the i-prefixed forms
// return a request instead.
#pragma once

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "base/request.h"

namespace ferry::coll {

// Data movement (MPI-3.1 §5.3-5.8) and barrier. The i-forms start the same
// schedule and return its request in *request. sendbuf may be MPI_IN_PLACE
// where the standard allows it (gather(v) at the root, allgather(v),
// alltoall(v,w)); so may recvbuf for scatter(v) at the root. Arguments that
// are not significant on a rank (the receive side of gather on non-roots,
// ...) are not looked at there.
Err barrier(Communicator* c);
Err ibarrier(Communicator* c, Request** request);
Err bcast(void* buf, int count, const Datatype* type, int root, Communicator* c);
Err ibcast(void* buf, int count, const Datatype* type, int root, Communicator* c, Request** request);
Err gather(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
           const Datatype* recvtype, int root, Communicator* c);
Err igather(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
            const Datatype* recvtype, int root, Communicator* c, Request** request);
Err gatherv(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, const int recvcounts[],
            const int displs[], const Datatype* recvtype, int root, Communicator* c);
Err igatherv(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, const int recvcounts[],
             const int displs[], const Datatype* recvtype, int root, Communicator* c, Request** request);
Err scatter(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
            const Datatype* recvtype, int root, Communicator* c);
Err iscatter(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
             const Datatype* recvtype, int root, Communicator* c, Request** request);
Err scatterv(const void* sendbuf, const int sendcounts[], const int displs[], const Datatype* sendtype, void* recvbuf,
             int recvcount, const Datatype* recvtype, int root, Communicator* c);
Err iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], const Datatype* sendtype,
              void* recvbuf, int recvcount, const Datatype* recvtype, int root, Communicator* c, Request** request);
Err allgather(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
              const Datatype* recvtype, Communicator* c);
Err iallgather(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
               const Datatype* recvtype, Communicator* c, Request** request);
Err allgatherv(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, const int recvcounts[],
               const int displs[], const Datatype* recvtype, Communicator* c);
Err iallgatherv(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], const Datatype* recvtype, Communicator* c, Request** request);
Err alltoall(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
             const Datatype* recvtype, Communicator* c);
Err ialltoall(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
              const Datatype* recvtype, Communicator* c, Request** request);
Err alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], const Datatype* sendtype,
              void* recvbuf, const int recvcounts[], const int rdispls[], const Datatype* recvtype, Communicator* c);
Err ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], const Datatype* sendtype,
               void* recvbuf, const int recvcounts[], const int rdispls[], const Datatype* recvtype, Communicator* c,
               Request** request);
// Displacements in bytes, a datatype per peer.
Err alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const Datatype* const sendtypes[],
              void* recvbuf, const int recvcounts[], const int rdispls[], const Datatype* const recvtypes[],
              Communicator* c);
Err ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const Datatype* const sendtypes[],
               void* recvbuf, const int recvcounts[], const int rdispls[], const Datatype* const recvtypes[],
               Communicator* c, Request** request);

// Reductions (MPI-3.1 §5.9-5.11). sendbuf may be MPI_IN_PLACE where the
// standard allows it (allreduce, reduce at the root, reduce_scatter(_block),
// scan, exscan); `op` has passed check_op for `type`.
Err allreduce(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, Communicator* c);
// MPI_Reduce_local: inout = in op inout, here (GPU buffers staged to the host).
Err reduce_local(const void* in, void* inout, int count, const Datatype* type, const Op* op);
Err iallreduce(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, Communicator* c,
               Request** request);
// Not an MPI operation: on an intercommunicator, the reduction over every
// process of both groups, at every process (MPI's intercommunicator
// allreduce gives each group the other group's). For the runtime's
// context-id agreements; `op` must be commutative.
Err iallreduce_both_groups(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op,
                           Communicator* inter, Request** request);
Err reduce(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, int root,
           Communicator* c);
Err ireduce(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, int root,
            Communicator* c, Request** request);
Err reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], const Datatype* type, const Op* op,
                   Communicator* c);
Err ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], const Datatype* type, const Op* op,
                    Communicator* c, Request** request);
Err reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, const Datatype* type, const Op* op,
                         Communicator* c);
Err ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, const Datatype* type, const Op* op,
                          Communicator* c, Request** request);
Err scan(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, Communicator* c);
Err iscan(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, Communicator* c,
          Request** request);
Err exscan(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, Communicator* c);
Err iexscan(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, Communicator* c,
            Request** request);

// Neighbourhood collectives (MPI-3.1 §7.6) on a communicator with a topology
// (the caller has checked that it has one). `request`: nullptr for the
// blocking form, else the nonblocking form's request. Block i of recvbuf
// comes from in-neighbour i, block j of sendbuf (all of sendbuf for the
// allgathers) goes to out-neighbour j.
Err neighbor_allgather(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
                       const Datatype* recvtype, Communicator* c, Request** request);
Err neighbor_allgatherv(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], const Datatype* recvtype, Communicator* c,
                        Request** request);
Err neighbor_alltoall(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
                      const Datatype* recvtype, Communicator* c, Request** request);
Err neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], const Datatype* sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], const Datatype* recvtype,
                       Communicator* c, Request** request);
// Displacements in bytes, a datatype per neighbour.
Err neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                       const Datatype* const sendtypes[], void* recvbuf, const int recvcounts[],
                       const MPI_Aint rdispls[], const Datatype* const recvtypes[], Communicator* c,
                       Request** request);

}  // namespace ferry::coll
