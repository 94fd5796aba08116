// A transport moves packets between ranks, and (where it can) reads and
// writes a peer's memory one-sidedly; nothing more.
//
// Matching, protocols and datatypes live above it, once, in the p2p layer
// (shared/STYLE.md: the Gloo `Pair`, UCX's uct/ucp split). A transport takes
// packets to send as SendItems that the caller owns (they live inside
// requests, so sending allocates nothing), and hands packets that arrive to a
// PacketHandler, asking it first where the payload should land so that large
// payloads go straight into the user's buffer.
//
// How a transport joins a job (its contact card, its connections, which
// peers it reaches) is the provider half of the interface, at the end of
// this file; transport/providers.h lists the providers.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "progress/source.h"
#include "transport/memory.h"
#include "transport/packet.h"

namespace ferry::transport {

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

// What start_atomic does to the 8 bytes at a peer's exposed address (the
// NIC's atomics: an RDMA fetch-and-add or compare-and-swap).
enum class AtomicKind : uint8_t { kFetchAdd, kCompareSwap };

// A one-sided copy between a local buffer and a peer's exposed one (read:
// remote into local; write: local into remote), or an atomic on 8 bytes of
// the peer's (the old value into local), owned by the caller until on_done.
// The single-copy rendezvous reads with it (p2p/engine.h); one-sided
// communication reads, writes and updates with it (rma/rdma.h).
struct OneSided {
  int peer = -1;                 // world rank
  RemoteBuffer remote;           // as the peer's expose() described it
  MemoryRef local;
  size_t bytes = 0;
  // start_atomic: what to do, with which operands (kFetchAdd: add `operand`;
  // kCompareSwap: store `operand` where `compare` is found).
  AtomicKind atomic = AtomicKind::kFetchAdd;
  uint64_t operand = 0, compare = 0;
  // A failure is the caller's to raise (one-sided communication turns it
  // into an MPI error class): the transport reports it through on_done and
  // does not end the job for it. False: a failure is fatal (rendezvous).
  bool caller_reports = false;
  // Called once the copy has finished (error: nullptr) or failed (error:
  // static text); only for a start that returned kPending, from progress().
  void (*on_done)(OneSided* op, const char* error) = nullptr;
  OneSided* next = nullptr;      // transport-private queue link
  uint8_t transport_op = 0;      // transport-private: which start it was
};

// What starting a one-sided copy did.
enum class Started {
  kDone,         // finished before returning; on_done is not called
  kPending,      // under way: on_done follows from a later progress()
  kUnsupported,  // this transport cannot (these memory kinds, this peer, or
                 // not any more): nothing happened, use the packets instead
};

// How a transport serves one peer.
struct Reach {
  // Messages up to this many bytes go eagerly: one packet, buffered at the
  // receiver when unexpected.
  size_t eager_limit = 0;
  // Contiguous messages of at least this many bytes offer the receiver their
  // memory for a one-sided read (single-copy rendezvous), below the eager
  // limit too: where the transport accepts the offer (Transport::expose) the
  // message goes that way, else eagerly. SIZE_MAX: never.
  size_t one_sided_threshold = SIZE_MAX;
  // The same for GPU memory (CUDA IPC, transport/shm/cuda_ipc.h).
  size_t device_one_sided_threshold = SIZE_MAX;
  // The same for a send that is half of an exchange (Request::exchange),
  // which the transport may accept where it refuses a one-way send (shm
  // where the ring is faster one way: in an exchange the ring costs each
  // core two copies against one). SIZE_MAX: as any other send.
  size_t exchange_one_sided_threshold = SIZE_MAX;
  // Whether Transport::send_now may take a packet to this peer at all: a
  // blocking send asks only then, so a route whose transport never writes
  // at once (TCP, verbs) costs it no virtual call that returns false.
  bool sends_now = false;
  // Whether Transport::progress_peer moves this peer's packets alone: a
  // blocking receive from it polls that first (p2p/pt2pt.cc).
  bool polls_peer = false;
};

// The job's key-value exchange (PMIx, provided by the runtime): what a
// provider publishes before a fence, every rank can look up after it.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual bool publish(const std::string& key, const std::string& value, std::string* error) = 0;
  virtual bool lookup(int rank, const std::string& key, std::string* value, std::string* error) = 0;
  // A value the launcher set for the whole job, if it did.
  virtual std::optional<std::string> job_value(const std::string& key) = 0;
};

// A transport is a source of the progress engine (progress/source.h):
// progress() moves its packets (sent, received, connections made), and its
// wait_fd() and wake-up arming let a waiting rank sleep on it.
class Transport : public progress::Source {
 public:
  virtual const char* name() const = 0;

  // --- Joining the job (runtime start-up: the same steps on every rank) ---
  // Before the first fence: set up what peers need to reach this rank (a
  // listening socket, a shared-memory segment) and publish its card.
  virtual bool publish(Exchange& exchange, std::string* error) = 0;
  // After that fence, with every card visible: attach to or prepare
  // connections to the peers (connections may still be made lazily).
  virtual bool connect(Exchange& exchange, std::string* error) = 0;
  // After a second fence that every rank passes once all have connected
  // (only when some provider asks for it, Provider::settles): drop what
  // only start-up needed, such as the names of shared segments.
  virtual void settled() {}
  // Whether this transport reaches world rank `peer`, and how.
  virtual std::optional<Reach> reach(int peer) const = 0;
  // A process of another job became peer index `peer` (beyond the world
  // ranks; MPI-3.1 §10, spawn and connect): whether this transport can
  // reach it, and how. Its card is found through the Exchange on first use.
  virtual std::optional<Reach> adopt(int peer) {
    (void)peer;
    return std::nullopt;
  }

  // --- Packets ---
  // Queues the packet for world rank `peer`. Returns an error message
  // (static storage) or nullptr.
  virtual const char* send(int peer, SendItem* item) = 0;
  // The packet whole on its medium before returning, with no SendItem and no
  // on_sent: p2p's inline path for a small blocking send (p2p/engine.h
  // send_now), which then needs no request. False, and nothing sent, when it
  // cannot go at once (packets queued to `peer` go first, so that messages
  // keep their order; no room; a transport without the path): the caller
  // then sends it with send(). The payload is header.payload_bytes bytes.
  virtual bool send_now(int peer, const PacketHeader& header, const void* payload) {
    (void)peer, (void)header, (void)payload;
    return false;
  }
  // Moves what `peer` has sent and what waits to go to it, and nothing
  // else; returns events, as progress() does. Cheaper than progress(),
  // never instead of it: a blocking receive from one peer (Reach::polls_peer)
  // calls it between full passes of the engine, which still run regularly
  // (progress/progress.h, wait_with). Transports without it: no events.
  virtual int progress_peer(int peer) {
    (void)peer;
    return 0;
  }
  // True while packets are queued that progress() still has to push out;
  // finalize waits until no transport has any (drain).
  virtual bool has_pending_sends() const = 0;

  // --- One-sided access ---
  // Makes `n` bytes at `local` accessible to `peer` for one-sided reads
  // (registering them with a NIC where it must). Fills `remote` with what the
  // peer needs, the registration key included; false if this transport
  // cannot expose such memory to that peer. Every expose is paired with one
  // conceal once the peer is done.
  virtual bool expose(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote) {
    (void)peer, (void)local, (void)n, (void)remote;
    return false;
  }
  // The same for a send that is half of an exchange (MPI_Sendrecv): the
  // ranks copy their incoming halves at the same time, so every core is
  // busy and the fewest copies win. A transport whose one-sided copy loses
  // to its own pipelined path only when one side sits idle (shm: CMA against
  // the ring's copy in and copy out, on two cores) offers it here anyway.
  virtual bool expose_exchanged(int peer, const MemoryRef& local, size_t n, RemoteBuffer* remote) {
    return expose(peer, local, n, remote);
  }
  virtual void conceal(const RemoteBuffer& remote) { (void)remote; }
  virtual Started start_read(OneSided* op) {
    (void)op;
    return Started::kUnsupported;
  }
  virtual Started start_write(OneSided* op) {
    (void)op;
    return Started::kUnsupported;
  }
  // One-sided communication's window memory (rma/rdma.h): exposed to every
  // peer this transport reaches for remote writes, reads and (where the
  // NIC has them) atomics, until conceal. False where a transport's peers
  // reach memory only through messages (every transport but verbs).
  virtual bool expose_window(const MemoryRef& local, size_t n, RemoteBuffer* remote) {
    (void)local, (void)n, (void)remote;
    return false;
  }
  // Whether this side's NIC executes start_atomic toward `peer` (-1: any).
  virtual bool has_atomics(int peer) const {
    (void)peer;
    return false;
  }
  // op->bytes == 8, op->local 8 bytes for the old value, op->remote.address
  // 8-byte aligned.
  virtual Started start_atomic(OneSided* op) {
    (void)op;
    return Started::kUnsupported;
  }
};

}  // namespace ferry::transport
