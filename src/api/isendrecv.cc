// MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10), also with
// MPI_Count counts (_c), which share one path with the int forms. Checked as
// MPI_Sendrecv(_replace) are.
#include "api/api.h"
#include "p2p/isendrecv.h"

using namespace ferry;

namespace {

int isendrecv(const char* name, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
              int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm comm, MPI_Request* request) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  const Datatype* st = call.datatype(sendtype, "sendtype");
  const Datatype* rt = call.datatype(recvtype, "recvtype");
  if (!call.movable(st, "sendtype") || !call.movable(rt, "recvtype") || !call.count(sendcount, "sendcount") ||
      !call.buffer(sendbuf, sendcount, st, "sendbuf") ||
      !call.rank(dest, *c, api::RankUse::kDestination, "destination rank") || !call.tag(sendtag, false) ||
      !call.count(recvcount, "recvcount") ||
      !call.buffer(recvbuf, recvcount, rt, "recvbuf") || !call.rank(source, *c, api::RankUse::kSource, "source rank") ||
      !call.tag(recvtag, true) || !call.not_null(request, "request"))
    return call.raise();
  Request* r = nullptr;
  Err e = pt2pt::isendrecv(pt2pt::Message{sendbuf, sendcount, st}, dest, sendtag, recvbuf,
                           recvcount, rt, source, recvtag, c, &r);
  *request = r->handle;
  return call.result(std::move(e));
}

int isendrecv_replace(const char* name, void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                      int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  const Datatype* t = call.datatype(datatype);
  if (!call.movable(t) || !call.count(count) || !call.buffer(buf, count, t) ||
      !call.rank(dest, *c, api::RankUse::kDestination, "destination rank") || !call.tag(sendtag, false) ||
      !call.rank(source, *c, api::RankUse::kSource, "source rank") || !call.tag(recvtag, true) ||
      !call.not_null(request, "request"))
    return call.raise();
  Request* r = nullptr;
  Err e = pt2pt::isendrecv_replace(buf, count, t, dest, sendtag, source, recvtag, c, &r);
  *request = r->handle;
  return call.result(std::move(e));
}

}  // namespace

extern "C" int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                              MPI_Comm comm, MPI_Request* request) {
  return isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                   recvtag, comm, request);
}
FERRY_ENTRY(Isendrecv)

extern "C" int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                   source, recvtag, comm, request);
}
FERRY_ENTRY(Isendrecv_c)

extern "C" int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                      int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                           request);
}
FERRY_ENTRY(Isendrecv_replace)

extern "C" int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                        int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source, recvtag, comm,
                           request);
}
FERRY_ENTRY(Isendrecv_replace_c)
