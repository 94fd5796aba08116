// The collective operations as core functions: arguments already validated,
// handles already translated. src/api calls these; so does the runtime
// itself (communicator construction gathers colours and keys, agrees on
// context ids).
//
// Each function picks an algorithm through the selection table
// (coll/select.h) and runs its schedule as `how` says (launch_form.h).
// Counts are MPI_Count and count arrays are views over int or MPI_Count
// (coll/count_array.h): the int and the large-count (_c) API calls share
// this core.
#pragma once

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "base/request.h"
#include "coll/at_once.h"
#include "coll/count_array.h"
#include "coll/launch_form.h"

namespace ferry::coll {

// Data movement (MPI-3.1 §5.3-5.8) and barrier. sendbuf may be MPI_IN_PLACE
// where the standard allows it (gather(v) at the root, allgather(v),
// alltoall(v,w)); so may recvbuf for scatter(v) at the root. Arguments that
// are not significant on a rank (the receive side of gather on non-roots,
// ...) are not looked at there.
//
// The ten operations that can have no data on any rank (bcast, gather,
// scatter, allgather, alltoall and the reductions but reduce_local) are
// inline: a blocking call with no data is done by no_data_now
// (at_once.h) in the caller, the API's entry point, without a call (issue
// 29: the call, its frame and its Launch and Err in memory were about 35
// instructions of a 0-byte call's 160-340). The rest of each, X_with_data,
// stays out of line. Always inline: as a plain inline function, GCC left
// the larger entry points' copies out of line.
#define FERRY_COLL_ENTRY inline __attribute__((always_inline))
Err barrier(Communicator* c, Launch how = {});
Err bcast_with_data(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how);
FERRY_COLL_ENTRY Err bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c,
                           Launch how = {}) {
  if (no_data_now("bcast", c, how, !c->inter && type->bytes(count) == 0)) return {};
  return bcast_with_data(buf, count, type, root, c, how);
}
Err gather_with_data(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                     MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how);
FERRY_COLL_ENTRY Err gather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                            MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how = {}) {
  if (no_data_now("gather", c, how,
                  !c->inter && (c->rank == root ? recvtype->bytes(recvcount) : sendtype->bytes(sendcount)) == 0))
    return {};
  return gather_with_data(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, how);
}
Err gatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, CountArray recvcounts,
            DisplArray displs, const Datatype* recvtype, int root, Communicator* c, Launch how = {});
Err scatter_with_data(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                      MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how);
FERRY_COLL_ENTRY Err scatter(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                             MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c,
                             Launch how = {}) {
  if (no_data_now("scatter", c, how,
                  !c->inter && (c->rank == root ? sendtype->bytes(sendcount) : recvtype->bytes(recvcount)) == 0))
    return {};
  return scatter_with_data(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, how);
}
Err scatterv(const void* sendbuf, CountArray sendcounts, DisplArray displs, const Datatype* sendtype, void* recvbuf,
             MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how = {});
Err allgather_with_data(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                        MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how);
FERRY_COLL_ENTRY Err allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                               MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how = {}) {
  if (no_data_now("allgather", c, how, !c->inter && recvtype->bytes(recvcount) == 0)) return {};
  return allgather_with_data(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
}
Err allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, CountArray recvcounts,
               DisplArray displs, const Datatype* recvtype, Communicator* c, Launch how = {});
Err alltoall_with_data(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                       MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how);
FERRY_COLL_ENTRY Err alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                              MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how = {}) {
  if (no_data_now("alltoall", c, how, !c->inter && recvtype->bytes(recvcount) == 0)) return {};
  return alltoall_with_data(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
}
Err alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype, void* recvbuf,
              CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype, Communicator* c, Launch how = {});

// Displacements in bytes, a datatype per peer.
Err alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* const sendtypes[],
              void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* const recvtypes[],
              Communicator* c, Launch how = {});

// Whether every rank's block of a reduce_scatter is empty: the same answer
// on every rank (the recvcounts must match, MPI-3.1 §5.10.1).
inline bool all_empty(CountArray recvcounts, int n) {
  for (int r = 0; r < n; ++r)
    if (recvcounts[r] != 0) return false;
  return true;
}

// Reductions (MPI-3.1 §5.9-5.11). sendbuf may be MPI_IN_PLACE where the
// standard allows it (allreduce, reduce at the root, reduce_scatter(_block),
// scan, exscan); `op` has passed check_op for `type`.
Err allreduce_with_data(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                        Communicator* c, Launch how);
FERRY_COLL_ENTRY Err allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                               Communicator* c, Launch how = {}) {
  if (no_data_now("allreduce", c, how, !c->inter && count == 0)) return {};
  return allreduce_with_data(sendbuf, recvbuf, count, type, op, c, how);
}
// MPI_Reduce_local: inout = in op inout, here (GPU buffers staged to the host).
Err reduce_local(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op);

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
Err reduce_with_data(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
                     Communicator* c, Launch how);
FERRY_COLL_ENTRY Err reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                            int root, Communicator* c, Launch how = {}) {
  if (no_data_now("reduce", c, how, !c->inter && count == 0)) return {};
  return reduce_with_data(sendbuf, recvbuf, count, type, op, root, c, how);
}
Err reduce_scatter_with_data(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type,
                             const Op* op, Communicator* c, Launch how);
FERRY_COLL_ENTRY Err reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type,
                                    const Op* op, Communicator* c, Launch how = {}) {
  if (no_data_now("reduce_scatter", c, how,
                  how.form == Launch::Form::kBlocking && !c->inter && all_empty(recvcounts, c->size)))
    return {};
  return reduce_scatter_with_data(sendbuf, recvbuf, recvcounts, type, op, c, how);
}
Err reduce_scatter_block_with_data(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                                   const Op* op, Communicator* c, Launch how);
FERRY_COLL_ENTRY Err reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                                          const Op* op, Communicator* c, Launch how = {}) {
  if (no_data_now("reduce_scatter_block", c, how, !c->inter && recvcount == 0)) return {};
  return reduce_scatter_block_with_data(sendbuf, recvbuf, recvcount, type, op, c, how);
}
Err scan_with_data(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                   Communicator* c, Launch how, bool exclusive);
FERRY_COLL_ENTRY Err scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                          Communicator* c, Launch how = {}) {
  if (no_data_now("scan", c, how, !c->inter && count == 0)) return {};
  return scan_with_data(sendbuf, recvbuf, count, type, op, c, how, false);
}
FERRY_COLL_ENTRY Err exscan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                            Communicator* c, Launch how = {}) {
  if (no_data_now("exscan", c, how, !c->inter && count == 0)) return {};
  return scan_with_data(sendbuf, recvbuf, count, type, op, c, how, true);
}

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
