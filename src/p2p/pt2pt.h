// Point-to-point operations as MPI defines them, on top of the p2p engine:
// requests and their life cycle, MPI_PROC_NULL, persistent requests,
// completion (wait/test and their any/all/some forms), probes and matched
// receives, cancellation. Arguments are already validated by src/api.
#pragma once

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/request.h"
#include "mpi.h"

namespace ferry::pt2pt {

struct Message {
  const void* buffer;
  MPI_Count count;  // MPI_Count throughout, for the large-count (_c) calls
  const Datatype* datatype;
};

// Which of a communicator's contexts an operation uses: the user's
// point-to-point traffic, or the collectives' own (MPI-3.1 §5.2).
enum class Context { kPointToPoint, kCollective };

// Starts a send; *out is the request (already complete for MPI_PROC_NULL).
// `exchange`: the send half of an exchange, the caller receiving as much
// from `dest` at the same time (Request::exchange: MPI_Sendrecv,
// MPI_Isendrecv, a collective schedule's pairwise round).
Err isend(Message m, int dest, int tag, Communicator* c, Request::Mode mode, Request** out,
          Context context = Context::kPointToPoint, bool exchange = false);
Err irecv(void* buffer, MPI_Count count, const Datatype* t, int source, int tag, Communicator* c, Request** out,
          Context context = Context::kPointToPoint);
// Blocking forms: the request never reaches the user. Returns the receive's
// error code (MPI_SUCCESS or, e.g., a truncation) through *code.
Err send(Message m, int dest, int tag, Communicator* c, Request::Mode mode,
         Context context = Context::kPointToPoint);
// FERRY_PROFILE's late-partner wait (profile/late_partners.h): set by the profile around a timed
// MPI_Recv, MPI_Sendrecv or MPI_Sendrecv_replace, called by that blocking receive once its message is matched (or it
// ended without one), so the profile learns how long the rank waited for its partner. Null
// otherwise: a receive pays one test of it.
inline thread_local void (*recv_matched_hook)() = nullptr;
Err recv(void* buffer, MPI_Count count, const Datatype* t, int source, int tag, Communicator* c, MPI_Status* status,
         int* code);

// MPI_Sendrecv: the receive is posted before the send starts. Returns the
// send's error; the receive's code comes through *code, as for recv.
Err sendrecv(Message m, int dest, int send_tag, void* buffer, MPI_Count count, const Datatype* t, int source, int recv_tag,
             Communicator* c, MPI_Status* status, int* code, Context context = Context::kPointToPoint);

// MPI_Sendrecv_replace: the outgoing data is packed aside (any datatype,
// GPU memory too), then it is MPI_Sendrecv from that copy into `buffer`.
// Returns the send's error (MPI_ERR_NO_MEM when no copy could be made);
// the receive's code comes through *code.
Err sendrecv_replace(void* buffer, MPI_Count count, const Datatype* t, int dest, int send_tag, int source,
                     int recv_tag, Communicator* c, MPI_Status* status, int* code);

// Persistent requests: described once, started many times.
Request* send_init(Message m, int dest, int tag, Communicator* c, Request::Mode mode);
Request* recv_init(void* buffer, MPI_Count count, const Datatype* t, int source, int tag, Communicator* c);
Err start(Request* r);

// Completion. `handle` is the user's handle: set to MPI_REQUEST_NULL when a
// nonpersistent request is retired. Each returns the request's error code.
int wait(MPI_Request* handle, MPI_Status* status);
int test(MPI_Request* handle, int* flag, MPI_Status* status);
int wait_any(int n, MPI_Request handles[], int* index, MPI_Status* status);
int test_any(int n, MPI_Request handles[], int* index, int* flag, MPI_Status* status);
int wait_all(int n, MPI_Request handles[], MPI_Status statuses[]);
int test_all(int n, MPI_Request handles[], int* flag, MPI_Status statuses[]);
int wait_some(int n, MPI_Request handles[], int* outcount, int indices[], MPI_Status statuses[]);
int test_some(int n, MPI_Request handles[], int* outcount, int indices[], MPI_Status statuses[]);
// MPI_Request_get_status: like test, but the request stays. Returns the
// error of a generalized request's query_fn, else MPI_SUCCESS.
int peek(Request* r, int* flag, MPI_Status* status);
// Return MPI_SUCCESS, or the error a generalized request's callback returned,
// or MPI_ERR_REQUEST for an active persistent collective (which stays, and
// *handle with it).
int free_request(MPI_Request* handle);
int cancel(Request* r);

// Probes. The blocking forms wait for a matching message.
void probe(int source, int tag, Communicator* c, MPI_Status* status);
bool iprobe(int source, int tag, Communicator* c, MPI_Status* status);
void mprobe(int source, int tag, Communicator* c, MPI_Message* message, MPI_Status* status);
bool improbe(int source, int tag, Communicator* c, MPI_Message* message, MPI_Status* status);
// Receives a message from mprobe/improbe; *message becomes MPI_MESSAGE_NULL.
Err imrecv(void* buffer, MPI_Count count, const Datatype* t, MPI_Message* message, Request** out);
bool valid_message(MPI_Message m);

// The status of an empty (null or inactive) request (MPI-3.1 §3.7.3).
MPI_Status empty_status();

}  // namespace ferry::pt2pt
