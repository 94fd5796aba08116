// MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10.3): a send and a
// receive started together, completed by one request. That request is
// complete once both are; its status is the receive's (MPI_PROC_NULL and
// wildcards as for MPI_Recv), its error the first of the two.
#pragma once

#include "base/communicator.h"
#include "base/error.h"
#include "base/request.h"
#include "p2p/pt2pt.h"

namespace ferry::pt2pt {

// The receive is posted before the send starts, as MPI_Sendrecv does.
Err isendrecv(Message m, int dest, int send_tag, void* buffer, MPI_Count count, const Datatype* t, int source,
              int recv_tag, Communicator* c, Request** out);
// The outgoing data is packed aside first, so that the incoming message can
// land in `buffer` while the send is still in flight.
Err isendrecv_replace(void* buffer, MPI_Count count, const Datatype* t, int dest, int send_tag, int source, int recv_tag,
                      Communicator* c, Request** out);

}  // namespace ferry::pt2pt
