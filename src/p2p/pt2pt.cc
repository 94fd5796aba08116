#include "p2p/pt2pt.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "p2p/bsend.h"
#include "p2p/generalized.h"
#include "p2p/partitioned.h"
#include "base/handles.h"
#include "base/type_pack.h"
#include "progress/progress.h"
#include "p2p/data_access.h"
#include "p2p/engine.h"
#include "p2p/receive_now.h"

// Every function here holds the engine lock (progress::Lock) while it
// touches a request, the matching engine or a transport (base/request.h,
// "Threads"); a Lock taken inside another of this thread's is free.
namespace ferry::pt2pt {
namespace {

struct MatchedMessage {
  p2p::UnexpectedMessage* message;
  Communicator* comm;
};
handle::Table<MatchedMessage> messages;

void describe(Request* r, Request::Kind kind, void* buffer, MPI_Count count, const Datatype* t, int peer, int tag,
              Communicator* c) {
  r->kind = kind;
  r->comm = c;
  r->buffer = buffer;
  // One load and a branch unless a GPU driver is loaded (device/device.h);
  // the answer travels with the request to every copy of its data.
  p2p::locate(r);
  r->count = count;
  r->datatype = t;
  datatypes::retain(t);  // dropped when the request goes back to the pool
  r->bytes = t->bytes(count);
  r->peer = peer;
  r->tag = tag;
  r->context = c->context;
}

// A described request, active and not yet started (launch).
void arm(Request* r) {
  r->active = true;
  r->complete = false;
  r->matched = false;
  r->cancelled = false;
  r->cancel_pending = false;
  r->finished_while_cancelling = false;
  r->error = MPI_SUCCESS;
  r->status = MPI_Status{};
}

// Starts a described request: hands it to the engine, or completes it at
// once for MPI_PROC_NULL. Engine lock held.
Err launch(Request* r) {
  arm(r);
  if (r->peer == MPI_PROC_NULL) {
    r->status = proc_null_status();
    r->complete = true;
    return {};
  }
  if (r->kind == Request::Kind::kSend) {
    r->world_peer = r->comm->world_rank(r->peer);
    Err e = p2p::start_send(r);
    // A send that could not start is over, with its error: whoever waits on
    // its request (a collective's schedule, MPI_Wait after MPI_Isend) must
    // not wait for ever (an allreduce by messages on a communicator revoked
    // before the call hung).
    if (e) [[unlikely]] complete(r, e);
    return e;
  }
  p2p::start_recv(r);
  return {};
}

// Retires a completed request: reports its status and frees it unless it
// is persistent. Returns its error code. Engine lock held.
int retire(Request* r, MPI_Request* handle, MPI_Status* status) {
  if (r->kind == Request::Kind::kGeneralized) {
    int code = generalized::finish(r, status);
    if (handle != nullptr) *handle = MPI_REQUEST_NULL;
    requests::release(r);
    return code;
  }
  report_status(status, r->status);
  int error = r->error;
  if (r->persistent) {
    r->active = false;
    r->complete = false;
  } else {
    if (handle != nullptr) *handle = MPI_REQUEST_NULL;
    requests::release(r);
  }
  return error;
}

// The live, active request behind a handle, or nullptr for null/inactive.
// Engine lock held.
Request* active_request(MPI_Request h) {
  if (h == MPI_REQUEST_NULL) return nullptr;
  Request* r = requests::find(h);
  return r != nullptr && r->active ? r : nullptr;
}

void report_empty(MPI_Status* status) { report_status(status, empty_status()); }

}  // namespace

MPI_Status empty_status() {
  MPI_Status s{};
  s.MPI_SOURCE = MPI_ANY_SOURCE;
  s.MPI_TAG = MPI_ANY_TAG;
  s.MPI_ERROR = MPI_SUCCESS;
  return s;
}

Err isend(Message m, int dest, int tag, Communicator* c, Request::Mode mode, Request** out, Context context,
          bool exchange) {
  progress::Lock lock;
  Request* r = requests::acquire();
  describe(r, Request::Kind::kSend, const_cast<void*>(m.buffer), m.count, m.datatype, dest, tag, c);
  if (context == Context::kCollective) r->context = c->collective_context();
  r->mode = mode;
  r->exchange = exchange;
  *out = r;
  return launch(r);
}

Err irecv(void* buffer, MPI_Count count, const Datatype* t, int source, int tag, Communicator* c, Request** out,
          Context context) {
  progress::Lock lock;
  Request* r = requests::acquire();
  describe(r, Request::Kind::kRecv, buffer, count, t, source, tag, c);
  if (context == Context::kCollective) r->context = c->collective_context();
  *out = r;
  return launch(r);
}

// Blocking sends and receives keep their request on the stack: it never
// reaches the user, so it needs no handle, and skipping the pool keeps the
// latency path free of its bookkeeping. The request is referenced only
// while incomplete (as a cookie in the rendezvous, in the posted queue), and
// the call returns only once it is complete. A communicator freed by
// another thread meanwhile waits for it as for a pooled request (track).
// Declared after the call's progress::Lock, so that it is untracked with the
// lock still held.
struct StackRequest {
  Request r;
  bool tracked = false;
  // After describe(): from here on a free of r.comm waits for this request.
  void track() {
    requests::track(&r);
    tracked = true;
  }
  ~StackRequest() {
    if (tracked) requests::untrack(&r);
    datatypes::release(r.datatype);  // describe() retained it
  }
};

namespace {

// The largest blocking send that may skip its request (p2p::send_now): the
// small messages whose fixed cost is the latency, not their copy.
constexpr size_t kInlineSendMax = 4096;

// MPI_Send and MPI_Sendrecv's send. `exchange`: see Request::exchange.
Err blocking_send(Message m, int dest, int tag, Communicator* c, Request::Mode mode, Context context, bool exchange) {
  if (dest == MPI_PROC_NULL) return {};
  progress::Lock lock;
  // A small contiguous message in host memory, standard or ready mode (both
  // eager; a synchronous send waits for its match): written to the
  // transport at once when the route takes it so, and then complete, since
  // its buffer may be reused (MPI-3.1 §3.4). No request, no queue, no wait.
  // GPU buffers are told apart only by a request's locate(): with a driver
  // loaded, every send takes the usual path.
  if ((mode == Request::Mode::kStandard || mode == Request::Mode::kReady) && m.datatype->contiguous &&
      !device::enabled()) {
    size_t bytes = m.datatype->bytes(m.count);
    if (bytes <= kInlineSendMax &&
        p2p::send_now(c->world_rank(dest), c->rank, tag,
                      context == Context::kCollective ? c->collective_context() : c->context, m.buffer, bytes))
      return {};
  }
  StackRequest on_stack;
  Request* r = &on_stack.r;
  describe(r, Request::Kind::kSend, const_cast<void*>(m.buffer), m.count, m.datatype, dest, tag, c);
  on_stack.track();
  if (context == Context::kCollective) r->context = c->collective_context();
  r->mode = mode;
  r->exchange = exchange;
  if (Err e = launch(r)) return e;
  progress::wait_until(lock, [r] { return r->complete; });
  if (r->error != MPI_SUCCESS) return Err(error_code::class_of(r->error), error_code::text(r->error));
  return {};
}

}  // namespace

Err send(Message m, int dest, int tag, Communicator* c, Request::Mode mode, Context context) {
  return blocking_send(m, dest, tag, c, mode, context, false);
}

namespace {

// recv from a rank, out of line: inlined, its lock, waits and request on
// the stack gave recv a frame that a receive from MPI_PROC_NULL paid for
// without using (issue 29).
__attribute__((noinline)) Err recv_from_rank(void* buffer, MPI_Count count, const Datatype* t, int source, int tag,
                                             Communicator* c, MPI_Status* status, int* code) {
  progress::Lock lock;
  // Contiguous host memory, one thread in the library, no profile waiting
  // to hear of the match: first without a request (p2p/receive_now.h,
  // begin_receive_now), which keeps MPI's matching order itself or
  // declines. GPU buffers are told apart only by a request's locate().
  p2p::ReceiveNow now;
  if (!progress::threads_enabled && recv_matched_hook == nullptr && t->contiguous && !device::enabled()) {
    now.buffer = buffer;
    now.bytes = t->bytes(count);
    now.source = source;
    now.tag = tag;
    now.context = c->context;
    if (p2p::begin_receive_now(&now)) {
      auto arrived = [&now] { return now.state != p2p::ReceiveNow::State::kWaiting; };
      int world_source = source == MPI_ANY_SOURCE ? -1 : c->world_rank(source);
      // From one peer reached over a transport that polls it alone (shm):
      // the pass that finds its packet is that peer's ring, the full one
      // now and then (tests/mpi/p2p_recv_peer_poll.c).
      if (world_source >= 0 && p2p::polls_peer(world_source))
        progress::wait_with(lock, arrived,
                            progress::PartialPass{[world_source] { return p2p::progress_peer(world_source); }});
      else
        progress::wait_until(lock, arrived);
      if (now.state == p2p::ReceiveNow::State::kDone) {
        report_status(status, now.status);
        *code = now.error;
        return {};
      }
    }
  }
  StackRequest on_stack;
  Request* r = &on_stack.r;
  describe(r, Request::Kind::kRecv, buffer, count, t, source, tag, c);
  on_stack.track();
  Err e;
  if (now.state == p2p::ReceiveNow::State::kFallback) {
    // A rendezvous matched it, held for this request alone: whatever was
    // posted since must not take it (MPI-3.1 §3.5).
    arm(r);
    p2p::start_fallback_recv(r, &now);
  } else {
    e = launch(r);
  }
  if (recv_matched_hook != nullptr) {
    progress::wait_until(lock, [r] { return r->matched || r->complete; });
    recv_matched_hook();
  }
  progress::wait_until(lock, [r] { return r->complete; });
  report_status(status, r->status);
  *code = r->error;
  return e;
}

}  // namespace

Err recv(void* buffer, MPI_Count count, const Datatype* t, int source, int tag, Communicator* c, MPI_Status* status,
         int* code) {
  if (source == MPI_PROC_NULL) {
    report_status(status, proc_null_status());
    *code = MPI_SUCCESS;
    return {};
  }
  return recv_from_rank(buffer, count, t, source, tag, c, status, code);
}

Err sendrecv(Message m, int dest, int send_tag, void* buffer, MPI_Count count, const Datatype* t, int source, int recv_tag,
             Communicator* c, MPI_Status* status, int* code, Context context) {
  // Receive first, so that two ranks exchanging large messages never wait
  // on each other's send.
  progress::Lock lock;
  StackRequest on_stack;
  Request* r = &on_stack.r;
  bool receives = source != MPI_PROC_NULL;
  if (receives) {
    describe(r, Request::Kind::kRecv, buffer, count, t, source, recv_tag, c);
    on_stack.track();
    if (context == Context::kCollective) r->context = c->collective_context();
    if (Err e = launch(r)) return e;  // then nothing was posted
  }
  // An exchange when the receive can take as much as is sent: this rank
  // then copies its incoming half while the peer copies ours.
  bool exchange = receives && r->bytes >= m.datatype->bytes(m.count);
  Err sent = blocking_send(m, dest, send_tag, c, Request::Mode::kStandard, context, exchange);
  // Even when the send failed: the posted receive must not outlive this
  // frame, so this waits for its message (as MPI_Sendrecv always did).
  if (receives && recv_matched_hook != nullptr) {
    progress::wait_until(lock, [r] { return r->matched || r->complete; });
    recv_matched_hook();
  }
  if (receives) progress::wait_until(lock, [r] { return r->complete; });
  report_status(status, receives ? r->status : proc_null_status());
  *code = receives ? r->error : MPI_SUCCESS;
  return sent;
}

Err sendrecv_replace(void* buffer, MPI_Count count, const Datatype* t, int dest, int send_tag, int source,
                     int recv_tag, Communicator* c, MPI_Status* status, int* code) {
  // Packed, so any datatype's data fits in `bytes` and goes as plain bytes.
  const size_t bytes = t->bytes(count);
  std::unique_ptr<char, decltype(&std::free)> copy(static_cast<char*>(std::malloc(bytes > 0 ? bytes : 1)), &std::free);
  if (copy == nullptr)
    return Err(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(bytes) + " bytes for the outgoing copy");
  if (Err e = p2p::pack_into(buffer, count, t, bytes, copy.get())) return e;
  Datatype packed = type::packed_view(*t);
  return sendrecv(Message{copy.get(), count, &packed}, dest, send_tag, buffer, count, t, source, recv_tag, c, status,
                  code);
}

Request* send_init(Message m, int dest, int tag, Communicator* c, Request::Mode mode) {
  progress::Lock lock;
  Request* r = requests::acquire();
  describe(r, Request::Kind::kSend, const_cast<void*>(m.buffer), m.count, m.datatype, dest, tag, c);
  r->mode = mode;
  r->persistent = true;
  return r;
}

Request* recv_init(void* buffer, MPI_Count count, const Datatype* t, int source, int tag, Communicator* c) {
  progress::Lock lock;
  Request* r = requests::acquire();
  describe(r, Request::Kind::kRecv, buffer, count, t, source, tag, c);
  r->persistent = true;
  return r;
}

Err start(Request* r) {
  progress::Lock lock;
  if (r->active) return fail(MPI_ERR_REQUEST, "the persistent request is already active");
  if (partitioned::is_partitioned(r)) return partitioned::start(r);
  if (r->restartable != nullptr) return r->restartable->start(r);
  if (r->kind == Request::Kind::kSend && r->mode == Request::Mode::kBuffered) {
    // MPI_Bsend_init: each start copies the message into the attached buffer
    // and is complete at once, as MPI_Ibsend is (MPI-3.1 §3.9); the copy is
    // sent from there.
    if (Err e = bsend::send(Message{r->buffer, r->count, r->datatype}, r->peer, r->tag, r->comm, r)) return e;
    r->active = true;
    r->complete = true;
    r->cancelled = false;
    r->cancel_pending = false;
    r->error = MPI_SUCCESS;
    r->status = MPI_Status{};
    return {};
  }
  return launch(r);
}

int wait(MPI_Request* handle, MPI_Status* status) {
  progress::Lock lock;
  Request* r = active_request(*handle);
  if (r == nullptr) {
    report_empty(status);
    return MPI_SUCCESS;
  }
  progress::wait_until(lock, [r] { return r->complete; });
  return retire(r, handle, status);
}

int test(MPI_Request* handle, int* flag, MPI_Status* status) {
  progress::Lock lock;
  Request* r = active_request(*handle);
  if (r == nullptr) {
    *flag = 1;
    report_empty(status);
    return MPI_SUCCESS;
  }
  if (!r->complete) progress::poll();
  if (!r->complete) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *flag = 1;
  return retire(r, handle, status);
}

int test_any(int n, MPI_Request handles[], int* index, int* flag, MPI_Status* status) {
  progress::Lock lock;
  progress::poll();
  bool any_active = false;
  for (int i = 0; i < n; ++i) {
    Request* r = active_request(handles[i]);
    if (r == nullptr) continue;
    any_active = true;
    if (r->complete) {
      *index = i;
      *flag = 1;
      return retire(r, &handles[i], status);
    }
  }
  *index = MPI_UNDEFINED;
  *flag = any_active ? 0 : 1;
  if (!any_active) report_empty(status);
  return MPI_SUCCESS;
}

int wait_any(int n, MPI_Request handles[], int* index, MPI_Status* status) {
  progress::Lock lock;
  for (;;) {
    int flag = 0;
    int code = test_any(n, handles, index, &flag, status);
    if (flag) return code;
    progress::wait_until(lock, [&] {
      for (int i = 0; i < n; ++i)
        if (Request* r = active_request(handles[i]); r != nullptr && r->complete) return true;
      return false;
    });
  }
}

// Waitall/Testall/Waitsome/Testsome report per-request errors in the
// statuses and return MPI_ERR_IN_STATUS (MPI-3.1 §3.7.5); only then do they
// set the statuses' MPI_ERROR fields: MPI_SUCCESS for the operations that
// succeeded, the error code for those that failed.
int test_all(int n, MPI_Request handles[], int* flag, MPI_Status statuses[]) {
  progress::Lock lock;
  progress::poll();
  for (int i = 0; i < n; ++i) {
    Request* r = active_request(handles[i]);
    if (r != nullptr && !r->complete) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return wait_all(n, handles, statuses);
}

int wait_all(int n, MPI_Request handles[], MPI_Status statuses[]) {
  progress::Lock lock;
  // A request once complete stays so until retired below, so each check
  // resumes at the first one that was not: a pass costs one look, not n.
  int first_pending = 0;
  progress::wait_until(lock, [&] {
    for (; first_pending < n; ++first_pending)
      if (Request* r = active_request(handles[first_pending]); r != nullptr && !r->complete) return false;
    return true;
  });
  bool any_error = false;
  for (int i = 0; i < n && !any_error; ++i)
    if (Request* r = active_request(handles[i])) any_error = r->error != MPI_SUCCESS;
  for (int i = 0; i < n; ++i) {
    MPI_Status* s = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    Request* r = active_request(handles[i]);
    int code = MPI_SUCCESS;
    if (r == nullptr) report_empty(s);
    else code = retire(r, &handles[i], s);
    if (any_error && s != MPI_STATUS_IGNORE) s->MPI_ERROR = code;
  }
  return any_error ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int test_some(int n, MPI_Request handles[], int* outcount, int indices[], MPI_Status statuses[]) {
  progress::Lock lock;
  progress::poll();
  bool any_active = false;
  bool any_error = false;
  for (int i = 0; i < n; ++i) {
    Request* r = active_request(handles[i]);
    if (r == nullptr) continue;
    any_active = true;
    any_error |= r->complete && r->error != MPI_SUCCESS;
  }
  int done = 0;
  for (int i = 0; i < n; ++i) {
    Request* r = active_request(handles[i]);
    if (r == nullptr || !r->complete) continue;
    MPI_Status* s = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[done];
    int code = retire(r, &handles[i], s);
    if (any_error && s != MPI_STATUS_IGNORE) s->MPI_ERROR = code;
    indices[done++] = i;
  }
  *outcount = any_active ? done : MPI_UNDEFINED;
  return any_error ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int wait_some(int n, MPI_Request handles[], int* outcount, int indices[], MPI_Status statuses[]) {
  progress::Lock lock;
  for (;;) {
    int code = test_some(n, handles, outcount, indices, statuses);
    if (*outcount != 0) return code;
    progress::wait_until(lock, [&] {
      for (int i = 0; i < n; ++i)
        if (Request* r = active_request(handles[i]); r != nullptr && r->complete) return true;
      return false;
    });
  }
}

int peek(Request* r, int* flag, MPI_Status* status) {
  progress::Lock lock;
  if (r == nullptr || !r->active) {
    *flag = 1;
    report_empty(status);
    return MPI_SUCCESS;
  }
  if (!r->complete) progress::poll();
  *flag = r->complete ? 1 : 0;
  if (!*flag) return MPI_SUCCESS;
  if (r->kind == Request::Kind::kGeneralized) return generalized::query(r, status);
  report_status(status, r->status);
  return MPI_SUCCESS;
}

int free_request(MPI_Request* handle) {
  progress::Lock lock;
  Request* r = requests::find(*handle);
  // MPI-4.0 §6.13: freeing an active persistent collective is erroneous.
  // Refused, not deferred as for point-to-point: the program gets no word of
  // when the schedule stops writing its receive buffers, and a schedule that
  // finished after its buffers went out of scope (a function's locals)
  // wrote into whatever the stack held next. Refused whenever active, done
  // or not, so that the error does not depend on timing; the request stays,
  // to be completed and freed.
  if (r != nullptr && r->restartable != nullptr && r->active) {
    Err e = fail(MPI_ERR_REQUEST, "request 0x%x is an active persistent collective; complete it (MPI_Wait, MPI_Test) "
                 "before freeing it (MPI-4.0 §6.13)", static_cast<unsigned>(*handle));
    return error_code::make(e.mpi_class(), e.message());
  }
  *handle = MPI_REQUEST_NULL;
  if (r == nullptr) return MPI_SUCCESS;
  if (partitioned::is_partitioned(r)) {
    partitioned::free_request(r);
    return MPI_SUCCESS;
  }
  int code = r->kind == Request::Kind::kGeneralized ? generalized::free(r) : MPI_SUCCESS;
  // An active request still owns its buffer and may be in a transport's
  // queue (a generalized one still waits for MPI_Grequest_complete): it is
  // freed when it completes.
  if (r->active && !r->complete) r->user_freed = true;
  else requests::release(r);
  return code;
}

int cancel(Request* r) {
  progress::Lock lock;
  if (!r->active) return MPI_SUCCESS;
  if (partitioned::is_partitioned(r)) return partitioned::cancel(r);
  // The program's own operation: its cancel_fn decides, told whether it
  // has completed already (MPI-3.1 §12.2).
  if (r->kind == Request::Kind::kGeneralized) return generalized::cancel(r);
  // A send, even one that has finished here, may still wait unreceived at
  // its receiver: ask it (p2p/engine.h). The wait then ends with the answer,
  // cancelled or not, whatever else the program does (MPI-3.1 §3.8.4). A
  // buffered send's request is done at once; its copy's send is what the
  // receiver is asked about (p2p/bsend.h).
  if (r->kind == Request::Kind::kSend && r->mode == Request::Mode::kBuffered) {
    if (r->cancel_pending || r->cancelled) return MPI_SUCCESS;
    if (Err e = bsend::cancel(r)) return error_code::make(e.mpi_class(), e.message());
    return MPI_SUCCESS;
  }
  if (r->kind == Request::Kind::kSend && r->peer != MPI_PROC_NULL && !r->cancel_pending && !r->cancelled) {
    if (Err e = p2p::cancel_send(r)) return error_code::make(e.mpi_class(), e.message());
    return MPI_SUCCESS;
  }
  if (r->complete) return MPI_SUCCESS;
  // An unmatched receive is simply taken back.
  if (r->kind == Request::Kind::kRecv) p2p::cancel_recv(r);
  return MPI_SUCCESS;
}

void probe(int source, int tag, Communicator* c, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    report_status(status, proc_null_status());
    return;
  }
  MPI_Status s{};
  progress::Lock lock;
  progress::wait_until(lock, [&] { return p2p::probe(c->context, source, tag, &s); });
  report_status(status, s);
}

bool iprobe(int source, int tag, Communicator* c, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    report_status(status, proc_null_status());
    return true;
  }
  MPI_Status s{};
  progress::Lock lock;
  bool found = p2p::probe(c->context, source, tag, &s);
  if (!found) {
    progress::poll();
    found = p2p::probe(c->context, source, tag, &s);
  }
  if (found) report_status(status, s);
  return found;
}

namespace {

// Takes a matching message out of the queue as an MPI_Message (engine lock
// held); false if none has arrived.
bool take_matched(int source, int tag, Communicator* c, MPI_Message* message, MPI_Status* status) {
  MPI_Status s{};
  p2p::UnexpectedMessage* m = p2p::take_message(c->context, source, tag, &s);
  if (m == nullptr) return false;
  *message = handle::make_dynamic(handle::Object::kMessage, messages.add(new MatchedMessage{m, c}));
  report_status(status, s);
  return true;
}

}  // namespace

bool improbe(int source, int tag, Communicator* c, MPI_Message* message, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    report_status(status, proc_null_status());
    return true;
  }
  progress::Lock lock;
  if (take_matched(source, tag, c, message, status)) return true;
  progress::poll();
  return take_matched(source, tag, c, message, status);
}

void mprobe(int source, int tag, Communicator* c, MPI_Message* message, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    report_status(status, proc_null_status());
    return;
  }
  progress::Lock lock;
  progress::wait_until(lock, [&] { return take_matched(source, tag, c, message, status); });
}

bool valid_message(MPI_Message m) {
  return m == MPI_MESSAGE_NO_PROC ||
         (handle::is_dynamic(m, handle::Object::kMessage) && messages.get(handle::index_of(m)) != nullptr);
}

Err imrecv(void* buffer, MPI_Count count, const Datatype* t, MPI_Message* message, Request** out) {
  progress::Lock lock;
  Request* r = requests::acquire();
  *out = r;
  if (*message == MPI_MESSAGE_NO_PROC) {
    describe(r, Request::Kind::kRecv, buffer, count, t, MPI_PROC_NULL, MPI_ANY_TAG, &communicators::self());
    *message = MPI_MESSAGE_NULL;
    return launch(r);
  }
  MatchedMessage* matched = messages.remove(handle::index_of(*message));
  *message = MPI_MESSAGE_NULL;
  describe(r, Request::Kind::kRecv, buffer, count, t, matched->message->header.source,
           matched->message->header.tag, matched->comm);
  r->active = true;
  p2p::start_matched_recv(r, matched->message);
  delete matched;
  return {};
}

}  // namespace ferry::pt2pt
