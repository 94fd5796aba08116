// Buffered sends (MPI_Bsend, MPI_Ibsend, MPI_Buffer_attach/detach): the
// message is copied into the user's attached buffer and sent from there, so
// the call completes at once whatever the receiver does (MPI-3.1 §3.6).
#pragma once

#include "base/communicator.h"
#include "base/error.h"
#include "p2p/pt2pt.h"

namespace ferry::bsend {

Err attach(void* buffer, MPI_Count size);
// Waits until every buffered send has left, then returns the buffer.
Err detach(void** buffer, MPI_Count* size);
// Copies the message and starts sending the copy. `owner`: the user's
// request of MPI_Ibsend or a started MPI_Bsend_init, which MPI_Cancel may
// name later (nullptr for MPI_Bsend).
Err send(pt2pt::Message m, int dest, int tag, Communicator* c, Request* owner = nullptr);
// MPI_Cancel of `owner`: asks the receiver to drop the copy's message if it
// has not taken it yet; `owner` then waits for the answer, which decides
// whether its status says cancelled. Once the copy's send has finished and
// its region was reused, the cancel fails, as MPI allows. Engine lock held.
Err cancel(Request* owner);

}  // namespace ferry::bsend
