// Sends in every mode (MPI-3.1 §3.2-3.9): blocking, nonblocking, persistent,
// and the buffered-send buffer; each also in its large-count form (the _c
// names of MPI-4.0, with an MPI_Count count), which share one path with
// the int form: the int count is widened on the way in.
#include "api/api.h"
#include "p2p/bsend.h"
#include "p2p/pt2pt.h"

using namespace ferry;

namespace {

using Mode = Request::Mode;

// The checks every send shares; returns the communicator, or nullptr.
FERRY_INLINE Communicator* check_send(api::Call& call, const void* buf, MPI_Count count, MPI_Datatype type, int dest,
                                      int tag, MPI_Comm comm, const Datatype** t) {
  Communicator* c = call.comm(comm);
  if (c == nullptr) return nullptr;
  *t = call.message_datatype(type, count);
  if (!call.movable(*t) || !call.count(count) || !call.buffer(buf, count, *t) || !call.rank(dest, *c, api::RankUse::kDestination, "destination rank") ||
      !call.tag(tag, false))
    return nullptr;
  return c;
}

FERRY_INLINE int blocking_send(const char* name, const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                               MPI_Comm comm, Mode mode) {
  api::Call call(name);
  const Datatype* t = nullptr;
  Communicator* c = check_send(call, buf, count, type, dest, tag, comm, &t);
  if (c == nullptr) return call.raise();
  // MPI-3.1 §3.11: a send to MPI_PROC_NULL succeeds at once, after the
  // argument checks (pt2pt::send returns at once too; this skips only the
  // call into it, issue 29). A buffered one goes to bsend, as any.
  if (dest == MPI_PROC_NULL && mode != Mode::kBuffered) return MPI_SUCCESS;
  pt2pt::Message m{buf, count, t};
  if (mode == Mode::kBuffered) return call.result(bsend::send(m, dest, tag, c));
  return call.result(pt2pt::send(m, dest, tag, c, mode));
}

int nonblocking_send(const char* name, const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, Mode mode, MPI_Request* request) {
  api::Call call(name);
  const Datatype* t = nullptr;
  Communicator* c = check_send(call, buf, count, type, dest, tag, comm, &t);
  if (c == nullptr || !call.not_null(request, "request")) return call.raise();
  pt2pt::Message m{buf, count, t};
  if (mode == Mode::kBuffered) {
    // The copy is made now, so the user's request is complete at once: a
    // send to MPI_PROC_NULL stands in for it, marked buffered so that
    // MPI_Cancel reaches the copy's send.
    Request* r = nullptr;
    if (Err e = pt2pt::isend(m, MPI_PROC_NULL, tag, c, Mode::kStandard, &r)) return call.result(std::move(e));
    r->mode = Mode::kBuffered;
    if (Err e = bsend::send(m, dest, tag, c, r)) {
      MPI_Request unused = r->handle;
      (void)pt2pt::free_request(&unused);
      return call.result(std::move(e));
    }
    *request = r->handle;
    return MPI_SUCCESS;
  }
  Request* r = nullptr;
  Err e = pt2pt::isend(m, dest, tag, c, mode, &r);
  *request = r->handle;
  return call.result(std::move(e));
}

int persistent_send(const char* name, const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm, Mode mode, MPI_Request* request) {
  api::Call call(name);
  const Datatype* t = nullptr;
  Communicator* c = check_send(call, buf, count, type, dest, tag, comm, &t);
  if (c == nullptr || !call.not_null(request, "request")) return call.raise();
  *request = pt2pt::send_init(pt2pt::Message{buf, count, t}, dest, tag, c, mode)->handle;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Send", buf, count, type, dest, tag, comm, Mode::kStandard);
}
FERRY_ENTRY(Send)

extern "C" int PMPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Ssend", buf, count, type, dest, tag, comm, Mode::kSynchronous);
}
FERRY_ENTRY(Ssend)

extern "C" int PMPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Rsend", buf, count, type, dest, tag, comm, Mode::kReady);
}
FERRY_ENTRY(Rsend)

extern "C" int PMPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Bsend", buf, count, type, dest, tag, comm, Mode::kBuffered);
}
FERRY_ENTRY(Bsend)

extern "C" int PMPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return nonblocking_send("MPI_Isend", buf, count, type, dest, tag, comm, Mode::kStandard, request);
}
FERRY_ENTRY(Isend)

extern "C" int PMPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  return nonblocking_send("MPI_Issend", buf, count, type, dest, tag, comm, Mode::kSynchronous, request);
}
FERRY_ENTRY(Issend)

extern "C" int PMPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  return nonblocking_send("MPI_Irsend", buf, count, type, dest, tag, comm, Mode::kReady, request);
}
FERRY_ENTRY(Irsend)

extern "C" int PMPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  return nonblocking_send("MPI_Ibsend", buf, count, type, dest, tag, comm, Mode::kBuffered, request);
}
FERRY_ENTRY(Ibsend)

extern "C" int PMPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  return persistent_send("MPI_Send_init", buf, count, type, dest, tag, comm, Mode::kStandard, request);
}
FERRY_ENTRY(Send_init)

extern "C" int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  return persistent_send("MPI_Ssend_init", buf, count, type, dest, tag, comm, Mode::kSynchronous, request);
}
FERRY_ENTRY(Ssend_init)

extern "C" int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  return persistent_send("MPI_Rsend_init", buf, count, type, dest, tag, comm, Mode::kReady, request);
}
FERRY_ENTRY(Rsend_init)

extern "C" int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  return persistent_send("MPI_Bsend_init", buf, count, type, dest, tag, comm, Mode::kBuffered, request);
}
FERRY_ENTRY(Bsend_init)

namespace {

int attach(const char* name, void* buffer, MPI_Count size) {
  api::Call call(name);
  if (!call.initialized() || !call.count(size, "size") || !call.bytes(buffer, size)) return call.raise();
  return call.result(bsend::attach(buffer, size));
}

int detach(const char* name, void* buffer_addr, MPI_Count* size) {
  api::Call call(name);
  if (!call.initialized() || !call.not_null(buffer_addr, "buffer_addr") || !call.not_null(size, "size"))
    return call.raise();
  return call.result(bsend::detach(static_cast<void**>(buffer_addr), size));
}

}  // namespace

extern "C" int PMPI_Buffer_attach(void* buffer, int size) { return attach("MPI_Buffer_attach", buffer, size); }
FERRY_ENTRY(Buffer_attach)

extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  MPI_Count n = 0;
  int rc = detach("MPI_Buffer_detach", buffer_addr, size == nullptr ? nullptr : &n);
  // A buffer attached with MPI_Buffer_attach_c may be larger than an int
  // says: MPI_UNDEFINED then, as MPI_Get_count does (MPI-4.0 §3.2.5).
  if (rc == MPI_SUCCESS) *size = n > INT32_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  return rc;
}
FERRY_ENTRY(Buffer_detach)

extern "C" int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) { return attach("MPI_Buffer_attach_c", buffer, size); }
FERRY_ENTRY(Buffer_attach_c)

extern "C" int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return detach("MPI_Buffer_detach_c", buffer_addr, size);
}
FERRY_ENTRY(Buffer_detach_c)

// The large-count sends: the same calls with an MPI_Count count.

extern "C" int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Send_c", buf, count, type, dest, tag, comm, Mode::kStandard);
}
FERRY_ENTRY(Send_c)

extern "C" int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Ssend_c", buf, count, type, dest, tag, comm, Mode::kSynchronous);
}
FERRY_ENTRY(Ssend_c)

extern "C" int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Rsend_c", buf, count, type, dest, tag, comm, Mode::kReady);
}
FERRY_ENTRY(Rsend_c)

extern "C" int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Bsend_c", buf, count, type, dest, tag, comm, Mode::kBuffered);
}
FERRY_ENTRY(Bsend_c)

extern "C" int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return nonblocking_send("MPI_Isend_c", buf, count, type, dest, tag, comm, Mode::kStandard, request);
}
FERRY_ENTRY(Isend_c)

extern "C" int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return nonblocking_send("MPI_Issend_c", buf, count, type, dest, tag, comm, Mode::kSynchronous, request);
}
FERRY_ENTRY(Issend_c)

extern "C" int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return nonblocking_send("MPI_Irsend_c", buf, count, type, dest, tag, comm, Mode::kReady, request);
}
FERRY_ENTRY(Irsend_c)

extern "C" int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return nonblocking_send("MPI_Ibsend_c", buf, count, type, dest, tag, comm, Mode::kBuffered, request);
}
FERRY_ENTRY(Ibsend_c)

extern "C" int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return persistent_send("MPI_Send_init_c", buf, count, type, dest, tag, comm, Mode::kStandard, request);
}
FERRY_ENTRY(Send_init_c)

extern "C" int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return persistent_send("MPI_Ssend_init_c", buf, count, type, dest, tag, comm, Mode::kSynchronous, request);
}
FERRY_ENTRY(Ssend_init_c)

extern "C" int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return persistent_send("MPI_Rsend_init_c", buf, count, type, dest, tag, comm, Mode::kReady, request);
}
FERRY_ENTRY(Rsend_init_c)

extern "C" int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return persistent_send("MPI_Bsend_init_c", buf, count, type, dest, tag, comm, Mode::kBuffered, request);
}
FERRY_ENTRY(Bsend_init_c)
