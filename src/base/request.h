// Requests: the state of one nonblocking operation.
//
// Requests come from a pool that grows in chunks and never shrinks, so that
// starting an operation allocates nothing once the program is warm. A
// request's handle encodes its fixed slot in the pool, so translating a handle
// is two array reads.
//
// Threads: a request's fields are read and written with the engine lock
// held (progress/progress.h), by the thread that owns the request (the user's
// call) and by whichever thread drives progress and completes it. The
// pool's free list is guarded by the same lock. Only find() runs without it:
// it reads the slot of a handle the caller owns.
#pragma once

#include <cstdint>
#include <vector>

#include "base/error.h"
#include "device/device.h"
#include "progress/progress.h"
#include "mpi.h"
#include "transport/transport.h"

namespace ferry::p2p {
struct PackStream;
struct Partitioned;
}

namespace ferry {

struct Communicator;
struct Datatype;

// A generalized request's callbacks (MPI-3.1 §12.2, p2p/generalized.h).
struct GeneralizedOps {
  MPI_Grequest_query_function* query;
  MPI_Grequest_free_function* free;
  MPI_Grequest_cancel_function* cancel;
  void* extra_state;
  bool freed = false;  // free_fn has run (it runs once)
};

struct Request;

// An operation that a layer above p2p builds once and MPI_Start starts
// again each time: a persistent collective (coll/persistent.h). Owned by
// its request, destroyed when the request goes back to the pool.
struct Restartable {
  virtual ~Restartable() = default;
  // Starts the operation on its inactive request `r`. Engine lock held.
  virtual Err start(Request* r) = 0;
};

struct Request {
  enum class Kind : uint8_t { kSend, kRecv, kCollective, kGeneralized };
  enum class Mode : uint8_t { kStandard, kSynchronous, kReady, kBuffered };

  Kind kind = Kind::kSend;
  Mode mode = Mode::kStandard;
  bool persistent = false;
  bool active = false;      // started and not yet completed-and-retired (persistent: started)
  bool complete = false;
  bool user_freed = false;  // MPI_Request_free on an active request: retire when it completes
  bool cancelled = false;
  bool matched = false;     // receive: a message has been matched to it
  // MPI_Cancel of a send: the receiver's answer is awaited, and completion
  // waits for it (the send may have finished meanwhile).
  bool cancel_pending = false;
  bool finished_while_cancelling = false;
  // Send: half of an exchange (MPI_Sendrecv) whose receive
  // takes as much at the same time, so that this rank's core copies too
  // (p2p/engine.cc start_send prefers the single copy then).
  bool exchange = false;
  MPI_Request handle = MPI_REQUEST_NULL;

  // The operation as the user described it.
  Communicator* comm = nullptr;
  void* buffer = nullptr;
  transport::MemoryKind memory = transport::MemoryKind::kHost;  // where `buffer` lives
  // GPU memory: what the driver said of `buffer` (its context, for the
  // copies' stream), asked once when the request is described
  // (p2p/data_access.h `locate`) and carried to every chunk's copy.
  device::PointerInfo device;
  MPI_Count count = 0;  // 64 bits: the large-count (_c) calls pass theirs whole
  const Datatype* datatype = nullptr;
  size_t bytes = 0;  // send: message size; receive: buffer capacity
  int peer = 0;      // communicator rank: destination, or source (may be MPI_ANY_SOURCE)
  int tag = 0;
  uint32_t context = 0;  // the communicator's point-to-point or collective context

  // The outcome, reported through MPI_Status.
  MPI_Status status{};
  int error = MPI_SUCCESS;  // MPI error code, also in status.MPI_ERROR

  // Protocol state. A send request sends its message (or rendezvous request
  // and then the data); a receive request sends its rendezvous-ready reply.
  transport::SendItem packet;
  int world_peer = -1;             // the other side, as a world rank
  uint64_t remote_cookie = 0;      // the peer's request (rendezvous)
  uint64_t message_bytes = 0;      // receive: size of the matched message (rendezvous)
  // A buffered send's user request: its copy in the attached buffer, by
  // which MPI_Cancel finds the send of the copy (p2p/bsend.h).
  void* bsend_copy = nullptr;
  // The send of a buffered copy being cancelled: the user's request, which
  // waits for the same answer.
  Request* cancel_for = nullptr;
  // Non-contiguous data in flight: its bounce and chunk buffers (p2p/pack_stream.h).
  p2p::PackStream* stream = nullptr;
  uint64_t received = 0;           // receive: rendezvous data arrived so far
  // Single-copy rendezvous: the sender's buffer as exposed to the receiver
  // (send: kept to conceal it at the end), and the receiver's read of it.
  transport::OneSided one_sided;
  GeneralizedOps* generalized = nullptr;  // kGeneralized: the user's callbacks (owned)
  // MPI_Psend_init/MPI_Precv_init: the partitioned operation's state
  // (p2p/partitioned.h, which frees it); kind is kSend or kRecv.
  p2p::Partitioned* partitioned = nullptr;
  Restartable* restartable = nullptr;     // persistent, built above p2p (owned)
  // FERRY_PROFILE: a persistent collective's starts so far, the same on every rank (each starts it
  // equally often), and the next one the profile measures (profile/companions.h).
  uint32_t profiled_starts = 0;
  uint32_t profiled_next_sample = 0;  // the start the profile measures next

  // Links for the posted-receive queue.
  Request* prev = nullptr;
  Request* next = nullptr;

  uint64_t cookie() const { return reinterpret_cast<uintptr_t>(this); }
  static Request* from_cookie(uint64_t c) { return reinterpret_cast<Request*>(static_cast<uintptr_t>(c)); }
};

namespace requests {

// A fresh request with a handle; fields at their defaults. Engine lock held.
Request* acquire();
// Returns the request to the pool; its handle becomes invalid. Engine lock
// held.
void release(Request* r);
// The live request behind a handle, or nullptr. Without the lock: a handle
// is resolved by the thread that owns it (MPI-3.1 §12.4.2: two threads
// must not use one request at once), and the slots never move.
Request* find(MPI_Request handle);
// Requests currently handed out (for leak checks in tests).
size_t live();
// Whether a live request (pending, persistent or not yet retired) belongs to
// `c`, to the intercommunicator whose local group `c` is, or to a shadow of
// either (communicators::shadow): a freed communicator is destroyed, and its
// context id freed, only once none does.
bool any_of(const Communicator* c);
// An operation in flight on `c` (started and not yet waited for or freed:
// `active`, or a blocking call's request on another thread), or nullptr.
// For a checkpoint's consistent cut (runtime/checkpoint.h). Engine lock held.
const Request* first_active_of(const Communicator* c);
// Requests outside the pool (a blocking call's, on its stack) that any_of
// must see too, from when they are described until they are done. Engine
// lock held, as for any_of.
void track(const Request* r);
void untrack(const Request* r);

}  // namespace requests

// Marks a request complete (engine lock held) and announces it to waiting
// threads. A request the user already freed (MPI_Request_free) has nobody
// to collect it and goes back to the pool.
inline void complete(Request* r) {
  if (r->cancel_pending) [[unlikely]] {
    r->finished_while_cancelling = true;
    return;
  }
  r->complete = true;
  progress::note_event();
  if (r->user_freed) requests::release(r);
}

// Records an error on a request that has none yet: an MPI error code that
// remembers the message, in its error and its status. A request that failed
// once keeps its first error.
void set_error(Request* r, const Err& e);
// Completes a request with `e`, which may be success.
inline void complete(Request* r, const Err& e) {
  if (!e.ok()) set_error(r, e);
  complete(r);
}

// The number of bytes a status reports, in MPICH's layout: the low 32 bits
// in count_lo, the rest above the cancelled bit of count_hi_and_cancelled.
inline void set_status_bytes(MPI_Status& s, size_t bytes) {
  s.count_lo = static_cast<int>(bytes & 0xffffffffu);
  s.count_hi_and_cancelled = static_cast<int>(((bytes >> 32) << 1) | (s.count_hi_and_cancelled & 1));
}
inline size_t status_bytes(const MPI_Status& s) {
  return static_cast<size_t>(static_cast<unsigned>(s.count_lo)) |
         (static_cast<size_t>(static_cast<unsigned>(s.count_hi_and_cancelled) >> 1) << 32);
}
inline void set_status_cancelled(MPI_Status& s, bool cancelled) {
  s.count_hi_and_cancelled = (s.count_hi_and_cancelled & ~1) | (cancelled ? 1 : 0);
}
inline bool status_cancelled(const MPI_Status& s) { return (s.count_hi_and_cancelled & 1) != 0; }

// Copies a status into the user's, all but MPI_ERROR: only the calls that
// can return MPI_ERR_IN_STATUS set that field (MPI-3.1 §3.2.5), so the
// single-completion calls (recv, wait, test, probe, ...) leave it alone.
inline void report_status(MPI_Status* out, const MPI_Status& in) {
  if (out == MPI_STATUS_IGNORE) return;
  int error = out->MPI_ERROR;
  *out = in;
  out->MPI_ERROR = error;
}

// The status of an operation with MPI_PROC_NULL (MPI-3.1 §3.11).
inline MPI_Status proc_null_status() {
  MPI_Status s{};
  s.MPI_SOURCE = MPI_PROC_NULL;
  s.MPI_TAG = MPI_ANY_TAG;
  return s;
}

}  // namespace ferry
