// The blocking collectives on GPU buffers (coll/device_buffers.h): each
// returns std::nullopt when none of the call's significant buffers is GPU
// memory (the caller then runs as usual), else the outcome of running the
// collective on host copies.
#pragma once

#include <optional>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "coll/collectives.h"
#include "coll/count_array.h"
#include "device/device.h"

namespace ferry::coll::gpu {

using Outcome = std::optional<Err>;

Outcome bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c);
Outcome gather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
               const Datatype* recvtype, int root, Communicator* c);
Outcome gatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root, Communicator* c);
Outcome scatter(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                const Datatype* recvtype, int root, Communicator* c);
Outcome scatterv(const void* sendbuf, CountArray sendcounts, DisplArray displs, const Datatype* sendtype, void* recvbuf,
                 MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c);
Outcome allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                  MPI_Count recvcount, const Datatype* recvtype, Communicator* c);
Outcome allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c);
Outcome alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                 const Datatype* recvtype, Communicator* c);
Outcome alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                  void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype, Communicator* c);
Outcome allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                  Communicator* c);
Outcome reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
               Communicator* c);
Outcome reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type, const Op* op,
                       Communicator* c);
Outcome reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                             const Op* op, Communicator* c);
Outcome reduce_local(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op);
Outcome scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, bool exclusive,
             Communicator* c);

// For the forms that are not staged (nonblocking, persistent, alltoallw,
// neighbourhood): the error to return if either buffer is GPU memory, else
// std::nullopt.
Outcome refuse(const char* what, const void* a, const void* b);

// A collective launched as `how` (coll/collectives.h) with buffers `a` and
// `b`: the blocking form runs `staged` (its gpu:: function above); the
// nonblocking and persistent forms refuse GPU buffers, since their
// schedules outlive the call and a staged copy would have to be copied back
// when the request completes, which is not written yet. std::nullopt (run
// as usual) when no GPU driver is loaded.
template <typename Staged>
Outcome for_launch(Launch how, const void* a, const void* b, Staged&& staged) {
  if (!device::enabled()) return std::nullopt;
  switch (how.form) {
    case Launch::Form::kNonblocking: return refuse("nonblocking collectives", a, b);
    case Launch::Form::kPersistent: return refuse("persistent collectives", a, b);
    default: return staged();
  }
}

}  // namespace ferry::coll::gpu
