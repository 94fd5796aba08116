// Point-to-point: the eager and rendezvous protocols over any transport.
//
//   eager       sender: [header + data] ------------------------------> receiver
//   rendezvous  sender: [request, size] -----> receiver matches it, replies
//               sender <----- [ready, receiver's cookie, bytes wanted]
//               sender: [data for cookie] ---> straight into the user's buffer
//   single-copy sender: [request, size, address] -> receiver reads the data
//               sender <----- [done]                 out of the sender's memory
//
// The single-copy rendezvous is offered for contiguous messages from the
// route's one_sided_threshold on (below the eager limit too: shm's CMA
// threshold is 8 KiB), when the transport exposes the buffer
// (shared memory with cross-memory attach; a NIC's registration, whose key
// travels as the request's payload). The receiver's transport reads the data
// one-sidedly, now or later (Transport::start_read); a receiver whose
// transport cannot read it, or whose receive is non-contiguous, answers with
// the ready packet instead.
//
// Non-contiguous datatypes are packed for eager sends, and their rendezvous
// data travels in chunks that are packed and unpacked as they go, in
// bounded memory (p2p/pack_stream.h); contiguous ones never are.
//
// Small messages go eagerly: one packet, buffered at the receiver if no
// receive is posted yet. Large messages and synchronous sends use the
// rendezvous, so an unexpected large message costs the receiver a header,
// never a copy of its data, and a synchronous send completes only once its
// receive has matched (MPI-3.1 §3.4).
#pragma once

#include "base/error.h"
#include "mpi.h"
#include "p2p/matching.h"
#include "transport/transport.h"

namespace ferry {
struct Request;
}

namespace ferry::p2p {

// The p2p layer speaks the transports' language (transport/transport.h).
using transport::Destination;
using transport::PacketHandler;
using transport::SendItem;
using transport::Transport;

struct Route {
  Transport* transport = nullptr;
  transport::Reach reach;
};

// Sets up the engine for this process; routes are filled in by set_route.
void init(int world_rank, int world_size);
void finalize();
void set_route(int world_peer, Route route);
// The name of the transport that reaches `world_peer` ("shm", "tcp", ...), or nullptr when it has no
// route (yet): for FERRY_PROFILE's report of who talked to whom over what.
const char* route_name(int world_peer);
PacketHandler* packet_handler();
// The transport that reaches `world_peer`, or nullptr (no route yet): for
// one-sided communication's direct use of a NIC (rma/rdma.h).
Transport* route_transport(int world_peer);

// Queues a packet on the route to `world_peer` (for the engine's own
// parts, such as p2p/pack_stream.cc).
Err send_packet(int world_peer, SendItem* item);

// Starts a send or receive described by the request's fields (comm, buffer,
// bytes, peer, tag, context, mode); completion is reported through
// request->complete. Peers are communicator ranks, never MPI_PROC_NULL here.
Err start_send(Request* r);
void start_recv(Request* r);
// A blocking send's inline path (p2p/pt2pt.cc): an eager message of
// `bytes` contiguous host bytes at `data`, from communicator rank `source`,
// written by the route's transport before this returns (Transport::send_now),
// with no request: a blocking send cannot be cancelled, and nothing waits
// for an on_sent. False, and nothing sent, when the route cannot take it so
// (too large for eager, a revoked context, packets queued to that peer):
// the caller then starts it with a request as usual.
bool send_now(int world_peer, int source, int tag, uint32_t context, const void* data, size_t bytes);

// A blocking receive's inline path, the twin of send_now: p2p/receive_now.h.

// Whether world rank `world_peer`'s transport can poll it alone
// (Reach::polls_peer), and that poll: events, as progress::poll() counts
// them. Engine lock held.
bool polls_peer(int world_peer);
int progress_peer(int world_peer);

// MPI_Iprobe: true and the status if a matching message has arrived.
bool probe(uint32_t context, int source, int tag, MPI_Status* status);
// MPI_Improbe: takes the matching message out of the queue (it becomes an
// MPI_Message), or nullptr.
UnexpectedMessage* take_message(uint32_t context, int source, int tag, MPI_Status* status);
// MPI_Mrecv: receives a message taken by take_message.
void start_matched_recv(Request* r, UnexpectedMessage* m);
// MPI_Cancel of a receive: true if it was still unmatched and is now cancelled.
bool cancel_recv(Request* r);
// MPI_Cancel of a send: asks the receiver to drop the message if no receive
// has taken it. The request completes with the answer: cancelled (its
// message is gone) or not (it completes as a send does, if it has not).
Err cancel_send(Request* r);

// Unexpected messages currently held (for tests and FERRY_DEBUG).
size_t unexpected_messages();

// MPIX_Comm_revoke's packets (p2p/revoke.h): tells `world_peer` that the
// communicator of `context` is revoked; fails every receive posted on
// `context` with MPIX_ERR_REVOKED, and drops the messages waiting there
// unreceived (telling the senders of rendezvous requests, whose sends then
// fail the same way). Engine lock held.
Err send_revoke(int world_peer, uint32_t context);
void fail_posted(uint32_t context);

}  // namespace ferry::p2p
