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

namespace ferry::coll::gpu {

using Outcome = std::optional<Err>;

Outcome bcast(void* buf, int count, const Datatype* type, int root, Communicator* c);
Outcome gather(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
               const Datatype* recvtype, int root, Communicator* c);
Outcome gatherv(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], const Datatype* recvtype, int root, Communicator* c);
Outcome scatter(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
                const Datatype* recvtype, int root, Communicator* c);
Outcome scatterv(const void* sendbuf, const int sendcounts[], const int displs[], const Datatype* sendtype,
                 void* recvbuf, int recvcount, const Datatype* recvtype, int root, Communicator* c);
Outcome allgather(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
                  const Datatype* recvtype, Communicator* c);
Outcome allgatherv(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], const Datatype* recvtype, Communicator* c);
Outcome alltoall(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
                 const Datatype* recvtype, Communicator* c);
Outcome alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], const Datatype* sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], const Datatype* recvtype,
                  Communicator* c);
Outcome allreduce(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, Communicator* c);
Outcome reduce(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, int root,
               Communicator* c);
Outcome reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], const Datatype* type,
                       const Op* op, Communicator* c);
Outcome reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, const Datatype* type, const Op* op,
                             Communicator* c);
Outcome reduce_local(const void* in, void* inout, int count, const Datatype* type, const Op* op);
Outcome scan(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, bool exclusive,
             Communicator* c);

// For the forms that are not staged (nonblocking, alltoallw, neighbourhood):
// the error to return if either buffer is GPU memory, else std::nullopt.
Outcome refuse(const char* what, const void* a, const void* b);

}  // namespace ferry::coll::gpu
