// Partitioned communication (MPI-4.0 §4): one message whose send buffer is
// filled in parts (partitions) that become ready one by one, often on
// different threads, and whose receiver may look at parts as they arrive.
//
// Built on the point-to-point engine, on a context of the communicator that
// nothing else uses (Communicator::partitioned_context), so it runs over
// every transport and never matches user traffic:
//
//   init     sender:   [INIT: partitions, bytes, sender id] --(user's tag)--> receiver
//            (sent by MPI_Psend_init; the receive is posted by MPI_Precv_init,
//            so the pairs match in the order of the init calls, by comm,
//            source and tag: MPI-4.0 §4.2.2)
//   a round  receiver: posts one receive per wire block, then
//                      [CTS: receiver id] --(sender id)--> sender
//            sender:   each MPI_Pready'd block --(receiver id, block)--> receiver
//
// A wire block is one sender partition, so a Pready puts its partition on
// the wire at once when the receiver's CTS for the round is in (else as soon
// as it is, at the next progress); only beyond 65536 partitions do blocks
// group several. The receiver maps blocks onto its own partitions by byte
// offset, so the two sides may use different partition counts (the total
// sizes must agree; a larger send is MPI_ERR_TRUNCATE). MPI_Parrived is a
// test of the receives of the blocks that cover the partition.
//
// The CTS makes every block land in a posted receive, never as an unexpected
// copy, and lets ids be reused safely: a sender sends a round's data only
// after the receiver started that round.
//
// Threads: every function takes the engine lock, so MPI_Pready from several
// threads on different partitions is safe (MPI-4.0 §4.2.3).
#pragma once

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/request.h"
#include "mpi.h"

namespace ferry::partitioned {

// MPI_Psend_init / MPI_Precv_init: a new persistent request in *out (its
// kind is kSend or kRecv, and `partitioned` is set). `peer` may be
// MPI_PROC_NULL. Arguments are already validated by src/api, except the
// limits of this implementation, reported here.
Err send_init(const void* buffer, int partitions, MPI_Count count, const Datatype* t, int dest, int tag,
              Communicator* c, Request** out);
Err recv_init(void* buffer, int partitions, MPI_Count count, const Datatype* t, int source, int tag,
              Communicator* c, Request** out);

inline bool is_partitioned(const Request* r) { return r != nullptr && r->partitioned != nullptr; }

// MPI_Start of a partitioned request (pt2pt::start calls this; the request
// is known to be inactive).
Err start(Request* r);

// MPI_Pready, MPI_Pready_range and MPI_Pready_list: MPI_ERR_ARG for a
// partition out of range or already ready in this round, MPI_ERR_REQUEST
// for an inactive request.
Err ready(Request* r, int partition);
Err ready_range(Request* r, int low, int high);
Err ready_list(Request* r, int length, const int partitions[]);

// MPI_Parrived: whether the data of receive partition `partition` is in the
// buffer (MPI-4.0 §4.2.4).
Err arrived(Request* r, int partition, int* flag);

// MPI_Request_free (pt2pt::free_request calls this): an active request is
// freed once its round completes; messages still under way are waited for
// in the background.
void free_request(Request* r);

// MPI_Cancel: partitioned operations are not cancelled (MPI_SUCCESS; the
// round completes normally, MPI-3.1 §3.8.4's "either the cancellation
// succeeds, or the communication succeeds").
int cancel(Request* r);

}  // namespace ferry::partitioned
