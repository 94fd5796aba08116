// Receives, combined send-receive, probes and matched receives
// (MPI-3.1 §3.2, §3.8, §3.10), each receive also in its large-count form
// (MPI-4.0's _c names): one path, with the int count widened.

#include "api/api.h"
#include "p2p/pt2pt.h"

using namespace ferry;

namespace {

FERRY_INLINE Communicator* check_recv(api::Call& call, void* buf, MPI_Count count, MPI_Datatype type, int source,
                                      int tag, MPI_Comm comm, const Datatype** t) {
  Communicator* c = call.comm(comm);
  if (c == nullptr) return nullptr;
  *t = call.message_datatype(type, count);
  if (!call.movable(*t) || !call.count(count) || !call.buffer(buf, count, *t) || !call.rank(source, *c, api::RankUse::kSource, "source rank") ||
      !call.tag(tag, true))
    return nullptr;
  return c;
}

Communicator* check_probe(api::Call& call, int source, int tag, MPI_Comm comm) {
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.rank(source, *c, api::RankUse::kSource, "source rank") || !call.tag(tag, true))
    return nullptr;
  return c;
}

FERRY_INLINE int receive(const char* name, void* buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Status* status) {
  api::Call call(name);
  const Datatype* t = nullptr;
  Communicator* c = check_recv(call, buf, count, type, source, tag, comm, &t);
  if (c == nullptr) return call.raise();
  int code = MPI_SUCCESS;
  if (Err e = pt2pt::recv(buf, count, t, source, tag, c, status, &code)) return call.result(std::move(e));
  return call.raise_code(code);
}

int nonblocking_receive(const char* name, void* buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                        MPI_Comm comm, MPI_Request* request) {
  api::Call call(name);
  const Datatype* t = nullptr;
  Communicator* c = check_recv(call, buf, count, type, source, tag, comm, &t);
  if (c == nullptr || !call.not_null(request, "request")) return call.raise();
  Request* r = nullptr;
  Err e = pt2pt::irecv(buf, count, t, source, tag, c, &r);
  *request = r->handle;
  return call.result(std::move(e));
}

int persistent_receive(const char* name, void* buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                       MPI_Comm comm, MPI_Request* request) {
  api::Call call(name);
  const Datatype* t = nullptr;
  Communicator* c = check_recv(call, buf, count, type, source, tag, comm, &t);
  if (c == nullptr || !call.not_null(request, "request")) return call.raise();
  *request = pt2pt::recv_init(buf, count, t, source, tag, c)->handle;
  return MPI_SUCCESS;
}

int send_receive(const char* name, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  const Datatype* st = call.datatype(sendtype, "sendtype");
  const Datatype* rt = call.datatype(recvtype, "recvtype");
  if (!call.movable(st, "sendtype") || !call.movable(rt, "recvtype") || !call.count(sendcount, "sendcount") || !call.buffer(sendbuf, sendcount, st, "sendbuf") ||
      !call.rank(dest, *c, api::RankUse::kDestination, "destination rank") || !call.tag(sendtag, false) ||
      !call.count(recvcount, "recvcount") || !call.buffer(recvbuf, recvcount, rt, "recvbuf") ||
      !call.rank(source, *c, api::RankUse::kSource, "source rank") || !call.tag(recvtag, true))
    return call.raise();
  int code = MPI_SUCCESS;
  if (Err e = pt2pt::sendrecv(pt2pt::Message{sendbuf, sendcount, st}, dest, sendtag, recvbuf, recvcount, rt, source,
                              recvtag, c, status, &code))
    return call.result(std::move(e));
  return call.raise_code(code);
}

int send_receive_replace(const char* name, void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  const Datatype* t = call.datatype(type);
  if (!call.movable(t) || !call.count(count) || !call.buffer(buf, count, t) ||
      !call.rank(dest, *c, api::RankUse::kDestination, "destination rank") || !call.tag(sendtag, false) ||
      !call.rank(source, *c, api::RankUse::kSource, "source rank") || !call.tag(recvtag, true))
    return call.raise();
  int code = MPI_SUCCESS;
  if (Err e = pt2pt::sendrecv_replace(buf, count, t, dest, sendtag, source, recvtag, c, status, &code))
    return call.result(std::move(e));
  return call.raise_code(code);
}

}  // namespace

extern "C" int PMPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                         MPI_Status* status) {
  return receive("MPI_Recv", buf, count, type, source, tag, comm, status);
}
FERRY_ENTRY(Recv)

extern "C" int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                           MPI_Status* status) {
  return receive("MPI_Recv_c", buf, count, type, source, tag, comm, status);
}
FERRY_ENTRY(Recv_c)

extern "C" int PMPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  return nonblocking_receive("MPI_Irecv", buf, count, type, source, tag, comm, request);
}
FERRY_ENTRY(Irecv)

extern "C" int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                            MPI_Request* request) {
  return nonblocking_receive("MPI_Irecv_c", buf, count, type, source, tag, comm, request);
}
FERRY_ENTRY(Irecv_c)

extern "C" int PMPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  return persistent_receive("MPI_Recv_init", buf, count, type, source, tag, comm, request);
}
FERRY_ENTRY(Recv_init)

extern "C" int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                                MPI_Request* request) {
  return persistent_receive("MPI_Recv_init_c", buf, count, type, source, tag, comm, request);
}
FERRY_ENTRY(Recv_init_c)

extern "C" int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status* status) {
  return send_receive("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                      source, recvtag, comm, status);
}
FERRY_ENTRY(Sendrecv)

extern "C" int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                               int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                               int recvtag, MPI_Comm comm, MPI_Status* status) {
  return send_receive("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                      source, recvtag, comm, status);
}
FERRY_ENTRY(Sendrecv_c)

extern "C" int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                                     int recvtag, MPI_Comm comm, MPI_Status* status) {
  return send_receive_replace("MPI_Sendrecv_replace", buf, count, type, dest, sendtag, source, recvtag, comm, status);
}
FERRY_ENTRY(Sendrecv_replace)

extern "C" int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag,
                                       int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return send_receive_replace("MPI_Sendrecv_replace_c", buf, count, type, dest, sendtag, source, recvtag, comm,
                              status);
}
FERRY_ENTRY(Sendrecv_replace_c)

extern "C" int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  api::Call call("MPI_Probe");
  Communicator* c = check_probe(call, source, tag, comm);
  if (c == nullptr) return call.raise();
  pt2pt::probe(source, tag, c, status);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Probe)

extern "C" int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  api::Call call("MPI_Iprobe");
  Communicator* c = check_probe(call, source, tag, comm);
  if (c == nullptr || !call.not_null(flag, "flag")) return call.raise();
  *flag = pt2pt::iprobe(source, tag, c, status);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Iprobe)

extern "C" int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  api::Call call("MPI_Mprobe");
  Communicator* c = check_probe(call, source, tag, comm);
  if (c == nullptr || !call.not_null(message, "message")) return call.raise();
  pt2pt::mprobe(source, tag, c, message, status);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Mprobe)

extern "C" int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                            MPI_Status* status) {
  api::Call call("MPI_Improbe");
  Communicator* c = check_probe(call, source, tag, comm);
  if (c == nullptr || !call.not_null(flag, "flag") || !call.not_null(message, "message")) return call.raise();
  *flag = pt2pt::improbe(source, tag, c, message, status);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Improbe)

namespace {

int matched_receive(api::Call& call, void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message,
                    Request** r) {
  if (!call.initialized()) return call.raise();
  const Datatype* t = call.datatype(type);
  if (!call.movable(t) || !call.count(count) || !call.buffer(buf, count, t) || !call.not_null(message, "message")) return call.raise();
  if (!pt2pt::valid_message(*message)) {
    call.fail(MPI_ERR_REQUEST, "invalid message handle 0x%x", static_cast<unsigned>(*message));
    return call.raise();
  }
  return call.result(pt2pt::imrecv(buf, count, t, message, r));
}

int blocking_matched(const char* name, void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message,
                     MPI_Status* status) {
  api::Call call(name);
  Request* r = nullptr;
  if (int rc = matched_receive(call, buf, count, type, message, &r); rc != MPI_SUCCESS || r == nullptr) return rc;
  MPI_Request handle = r->handle;
  return call.raise_code(pt2pt::wait(&handle, status));
}

int nonblocking_matched(const char* name, void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message,
                        MPI_Request* request) {
  api::Call call(name);
  if (!call.not_null(request, "request")) return call.raise();
  Request* r = nullptr;
  int rc = matched_receive(call, buf, count, type, message, &r);
  if (r != nullptr) *request = r->handle;
  return rc;
}

}  // namespace

extern "C" int PMPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  return blocking_matched("MPI_Mrecv", buf, count, type, message, status);
}
FERRY_ENTRY(Mrecv)

extern "C" int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message,
                            MPI_Status* status) {
  return blocking_matched("MPI_Mrecv_c", buf, count, type, message, status);
}
FERRY_ENTRY(Mrecv_c)

extern "C" int PMPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* request) {
  return nonblocking_matched("MPI_Imrecv", buf, count, type, message, request);
}
FERRY_ENTRY(Imrecv)

extern "C" int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message,
                             MPI_Request* request) {
  return nonblocking_matched("MPI_Imrecv_c", buf, count, type, message, request);
}
FERRY_ENTRY(Imrecv_c)
