// The collective operations as core functions: arguments already validated,
// handles already translated. src/api calls these; so does the runtime
// itself (communicator construction gathers colours and keys, agrees on
// context ids).
//
// Each function picks an algorithm through the selection table
// (coll/select.h) and runs its schedule to the end; the i-prefixed forms
// return a request instead.
#pragma once

#include "core/communicator.h"
#include "core/datatype.h"
#include "core/error.h"
#include "core/op.h"

namespace ferry::coll {

Err barrier(Communicator* c);
Err bcast(void* buf, int count, const Datatype* type, int root, Communicator* c);
// sendbuf may be MPI_IN_PLACE where the standard allows it.
Err allgather(const void* sendbuf, int sendcount, const Datatype* sendtype, void* recvbuf, int recvcount,
              const Datatype* recvtype, Communicator* c);
Err allreduce(const void* sendbuf, void* recvbuf, int count, const Datatype* type, const Op* op, Communicator* c);

}  // namespace ferry::coll
