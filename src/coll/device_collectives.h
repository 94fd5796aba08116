// The collectives on GPU buffers: each returns std::nullopt when none of
// the call's significant buffers is GPU memory (the caller then runs as
// usual), else the outcome of running the collective on the GPU buffers
// themselves (coll/device_schedule.h: contiguous types, and for reductions
// a predefined operation with a GPU kernel; any form) or on host copies
// (coll/device_buffers.h; in the nonblocking and persistent forms the
// copies are rounds of the request's schedule).
#pragma once

#include <optional>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "coll/collectives.h"
#include "coll/count_array.h"
#include "coll/device_buffers.h"
#include "coll/device_schedule.h"
#include "device/device.h"

namespace ferry::coll::gpu {

using Outcome = std::optional<Err>;

Outcome bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how);
Outcome gather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
               const Datatype* recvtype, int root, Communicator* c, Launch how);
Outcome gatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root, Communicator* c,
                Launch how);
Outcome scatter(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                const Datatype* recvtype, int root, Communicator* c, Launch how);
Outcome scatterv(const void* sendbuf, CountArray sendcounts, DisplArray displs, const Datatype* sendtype, void* recvbuf,
                 MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how);
Outcome allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                  MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how);
Outcome allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c, Launch how);
Outcome alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                 const Datatype* recvtype, Communicator* c, Launch how);
Outcome alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                  void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype, Communicator* c,
                  Launch how);
Outcome alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* const sendtypes[],
                  void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* const recvtypes[],
                  Communicator* c, Launch how);
// The neighbourhood collectives: staged (like every staged receive buffer,
// theirs is copied in as well, so the blocks of MPI_PROC_NULL neighbours
// and the gaps between blocks keep their bytes).
Outcome neighbor_allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                           MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how);
Outcome neighbor_allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                            CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c,
                            Launch how);
Outcome neighbor_alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                          MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how);
Outcome neighbor_alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                           void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype,
                           Communicator* c, Launch how);
Outcome neighbor_alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                           const Datatype* const sendtypes[], void* recvbuf, CountArray recvcounts,
                           DisplArray rdispls, const Datatype* const recvtypes[], Communicator* c, Launch how);
Outcome allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                  Communicator* c, Launch how);
Outcome reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
               Communicator* c, Launch how);
Outcome reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type, const Op* op,
                       Communicator* c, Launch how);
Outcome reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                             const Op* op, Communicator* c, Launch how);
Outcome reduce_local(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op);
Outcome scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, bool exclusive,
             Communicator* c, Launch how);

// Where a collective entry point asks the gpu:: function above: std::nullopt
// (run as usual) when no GPU driver is loaded, or when this call is the
// inner one of a collective already running on GPU buffers
// (coll/device_schedule.h) or on host copies of them (coll/device_buffers.h),
// else what `gpu` decides. Each gpu:: function
// runs the call on the GPU buffers themselves where it can, in any form
// (blocking, nonblocking, persistent: the schedule's scratch is GPU memory
// and nothing must be copied back at completion); otherwise it stages the
// buffers through the host, the copies back at the end of the call or, for
// a request, in the last round of its schedule.
template <typename Gpu>
Outcome for_launch(Launch, const void*, const void*, Gpu&& gpu) {
  if (!device::enabled() || ScratchOnGpu::near() != nullptr || HostStaging::active()) return std::nullopt;
  return gpu();
}

}  // namespace ferry::coll::gpu
