// Non-contiguous data through the point-to-point protocols (p2p/engine.h),
// in bounded memory whatever the message size.
//
//   eager send        the message (at most kMaxPackedEager bytes) is packed
//                     into a bounce buffer that lives until the packet has gone
//   rendezvous send   the data goes in DATA packets of at most kChunkBytes,
//                     each carrying its offset in the message; two are in
//                     flight at a time: when the transport is done with one,
//                     the next chunk is packed into its buffer (double
//                     buffering). A contiguous sender whose receiver asked
//                     for chunks sends them straight from the user's buffer.
//   receive           an eager payload lands in a bounce buffer of its size,
//                     a rendezvous chunk in the receive's one-chunk bounce
//                     buffer; each is unpacked into place as soon as it has
//                     arrived (a transport delivers one packet's payload
//                     completely before the next packet's header).
//
// A contiguous receiver takes chunks straight into its buffer at their
// offsets, so it never needs to know how the sender packed. Everything here
// runs under the engine lock.
//
// GPU buffers take the same paths as non-contiguous ones (p2p/data_access.h
// `streamed`): each chunk is copied between the GPU and a pinned staging
// buffer as it is packed or unpacked, and no transport ever sees GPU
// memory. A contiguous GPU send starts the next chunk's copy (an event
// behind it) when the chunk before is handed to the transport and waits for
// it only when the transport holds nothing else, so while one chunk is on
// the wire the next is being copied and progress goes on. A contiguous GPU
// receive of more than one chunk lands them in two pinned buffers by turns
// and starts each one's copy to the GPU (an event behind it) as it lands,
// waiting for a copy only when its buffer is wanted again and, for all of
// them, when the last chunk has landed: the wire does not wait for the GPU.
#pragma once

#include <cstdint>

#include "base/error.h"
#include "p2p/matching.h"
#include "transport/transport.h"

namespace ferry {
struct Request;
}

namespace ferry::p2p {

using transport::Destination;

constexpr uint64_t kChunkBytes = 256 * 1024;
constexpr uint64_t kMaxPackedEager = kChunkBytes;

struct PackStream;

// Eager send of a non-contiguous message (or one in GPU memory): packs it
// and points the request's packet at the packed copy; the packet's on_sent
// frees it and completes the request (with the error of a failed GPU copy,
// if one failed: the packet goes all the same).
Err pack_eager(Request* s);

// Rendezvous send in chunks: `bytes` for the receive `receiver_cookie`
// at world rank `world_peer`. The request completes once the last chunk has
// gone, or with its error if the transport refuses one. Sends one empty
// DATA packet for an empty message.
void send_chunks(Request* s, int world_peer, uint64_t bytes, uint64_t receiver_cookie);

// A non-contiguous receive: where an eager payload lands, and unpacking it
// (which frees the bounce buffer).
Destination eager_destination(Request* r, uint64_t payload_bytes);
void unpack_eager(Request* r, const Destination& d);

// A non-contiguous rendezvous receive of `bytes`: sets up its bounce
// buffer; then, for each DATA packet, where it lands and unpacking it.
void expect_chunks(Request* r, uint64_t bytes);
Destination chunk_destination(Request* r, const PacketHeader& h);
void unpack_chunk(Request* r, const PacketHeader& h, const Destination& d);

// Frees the request's stream (its buffers), if it has one.
void end_stream(Request* r);

// Frees the chunk buffers kept for reuse (p2p::finalize).
void drop_spare_chunks();

}  // namespace ferry::p2p
