// Buffered sends (MPI_Bsend, MPI_Ibsend, MPI_Buffer_attach/detach): the
// message is copied into the user's attached buffer and sent from there, so
// the call completes at once whatever the receiver does (MPI-3.1 §3.6).
#pragma once

#include "base/communicator.h"
#include "base/error.h"
#include "p2p/pt2pt.h"

namespace ferry::bsend {

Err attach(void* buffer, int size);
// Waits until every buffered send has left, then returns the buffer.
Err detach(void** buffer, int* size);
// Copies the message and starts sending the copy.
Err send(pt2pt::Message m, int dest, int tag, Communicator* c);

}  // namespace ferry::bsend
