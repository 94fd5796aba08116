// A transport moves packets between ranks; nothing more.
//
// Matching, protocols and datatypes live above it, once, in the p2p layer
// (shared/STYLE.md: the Gloo `Pair`, UCX's uct/ucp split). A transport takes
// packets to send as SendItems that the caller owns (they live inside
// requests, so sending allocates nothing), and hands packets that arrive to a
// PacketHandler, asking it first where the payload should land so that large
// payloads go straight into the user's buffer.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

#include "p2p/packet.h"
#include "progress/source.h"

namespace ferry::p2p {

// One packet to send. The transport keeps a pointer to it until it calls
// on_sent; the header and payload must stay valid until then.
struct SendItem {
  PacketHeader header;
  const void* payload = nullptr;  // header.payload_bytes bytes
  // Called once the whole packet is handed to the transport's medium, so the
  // payload buffer may be reused.
  void (*on_sent)(SendItem* item) = nullptr;
  // Transport-private progress: bytes of header+payload already written, and
  // the queue link.
  uint64_t sent = 0;
  SendItem* next = nullptr;
};

// Where an arriving payload goes: `capacity` bytes at `data`; bytes beyond
// the capacity are discarded (the receiver reports the truncation).
struct Destination {
  void* data = nullptr;
  size_t capacity = 0;
  void* context = nullptr;  // for the handler: the request or message it belongs to
};

// From one peer, packets are delivered in the order they were sent, and a
// packet's payload is complete (on_payload) before the next header from that
// peer arrives: the engine unpacks the chunks of a non-contiguous message
// through one bounce buffer per receive (p2p/pack_stream.h).
class PacketHandler {
 public:
  virtual ~PacketHandler() = default;
  // A header arrived from world rank `peer`; its payload (if any) follows.
  virtual Destination on_header(int peer, const PacketHeader& header) = 0;
  // The whole payload of that packet has landed in `destination`.
  virtual void on_payload(int peer, const PacketHeader& header, const Destination& destination) = 0;
};

// A transport is a source of the progress engine (progress/source.h):
// progress() moves its packets (sent, received, connections made), and its
// wait_fd() and wake-up arming let a waiting rank sleep on it.
class Transport : public progress::Source {
 public:
  virtual const char* name() const = 0;
  // Queues the packet for world rank `peer`. Returns an error message
  // (static storage) or nullptr.
  virtual const char* send(int peer, SendItem* item) = 0;
  // True while packets are queued that progress() still has to push out.
  virtual bool has_pending_sends() const = 0;

  // Single-copy rendezvous (p2p/engine.h): contiguous messages to `peer` of
  // at least this many bytes offer the receiver their address, to read
  // directly; SIZE_MAX: never.
  virtual size_t direct_read_threshold(int peer) const {
    (void)peer;
    return SIZE_MAX;
  }
  // Copies `n` bytes at address `remote` in `peer`'s memory into `local`.
  // False if this transport cannot (now or ever): the engine then asks the
  // sender for the data as usual.
  virtual bool read_direct(int peer, uint64_t remote, void* local, size_t n) {
    (void)peer, (void)remote, (void)local, (void)n;
    return false;
  }
};

}  // namespace ferry::p2p
