// MPI_Allgather, MPI_Allgatherv and their nonblocking forms (MPI-3.1 §5.7,
// §5.12.5).
//
// Checked here: the communicator, send and receive counts, datatypes and
// buffers, the receive counts and displacements of the v form, MPI_IN_PLACE
// as sendbuf (allowed: each rank's block is already in recvbuf) and as
// recvbuf (MPI_ERR_ARG), and sendbuf == recvbuf without MPI_IN_PLACE
// (MPI_ERR_BUFFER). Ranks that disagree on counts: a rank that receives a
// block longer than it expects fails with MPI_ERR_TRUNCATE.
#include "api/coll_checks.h"
#include "coll/collectives.h"

using namespace ferry;

namespace {

struct Args {
  Communicator* comm = nullptr;
  const Datatype* sendtype = nullptr;
  const Datatype* recvtype = nullptr;
};

// `recv_elements` is the receive count (the largest one in the v form),
// which the buffer checks use.
Args check(api::Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recv_elements, MPI_Datatype recvtype, MPI_Comm comm) {
  Args a;
  a.comm = call.comm(comm);
  a.sendtype = api::check_triple(call, sendbuf, sendcount, sendtype, "send", a.comm == nullptr || !a.comm->inter);
  a.recvtype = api::check_triple(call, recvbuf, recv_elements, recvtype, "recv");
  if (sendbuf != MPI_IN_PLACE) api::check_not_aliased(call, sendbuf, sendcount > 0, recvbuf, recv_elements > 0);
  return a;
}

// The v form's counts and displacements; returns the largest count.
int check_v(api::Call& call, MPI_Comm comm, const int recvcounts[], const int displs[]) {
  Communicator* c = call.comm(comm);
  if (c == nullptr || !api::check_counts(call, recvcounts, displs, c->peer_count(), "recv")) return 0;
  int largest = 0;
  for (int i = 0; i < c->peer_count(); ++i) largest = recvcounts[i] > largest ? recvcounts[i] : largest;
  return largest;
}

}  // namespace

extern "C" int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  api::Call call("MPI_Allgather");
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (!call.ok()) return call.raise();
  return call.result(coll::allgather(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, a.comm));
}
FERRY_WEAK_ALIAS(Allgather)

extern "C" int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Iallgather");
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::iallgather(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, a.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Iallgather)

extern "C" int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  api::Call call("MPI_Allgatherv");
  int largest = check_v(call, comm, recvcounts, displs);
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, largest, recvtype, comm);
  if (!call.ok()) return call.raise();
  return call.result(
      coll::allgatherv(sendbuf, sendcount, a.sendtype, recvbuf, recvcounts, displs, a.recvtype, a.comm));
}
FERRY_WEAK_ALIAS(Allgatherv)

extern "C" int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request* request) {
  api::Call call("MPI_Iallgatherv");
  int largest = check_v(call, comm, recvcounts, displs);
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, largest, recvtype, comm);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::iallgatherv(sendbuf, sendcount, a.sendtype, recvbuf, recvcounts, displs, a.recvtype, a.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Iallgatherv)
