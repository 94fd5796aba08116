// MPI_Scatter, MPI_Scatterv and their nonblocking forms (MPI-3.1 §5.6,
// §5.12.4).
//
// Checked here: the communicator and the root (MPI_ERR_ROOT); everywhere
// the receive count, type and buffer; at the root the send count (counts
// and displacements for the v form), type and buffer, MPI_IN_PLACE as
// recvbuf (allowed at the root only, else MPI_ERR_ARG) and sendbuf ==
// recvbuf without it (MPI_ERR_BUFFER). The send arguments are not
// significant elsewhere and are not looked at. Ranks that disagree on
// counts or the root: a block longer than a rank expects fails with
// MPI_ERR_TRUNCATE, a shorter one with MPI_ERR_OTHER (coll/schedule.cc).
#include "api/coll_checks.h"
#include "coll/collectives.h"

using namespace ferry;

namespace {

struct Args {
  Communicator* comm = nullptr;
  const Datatype* sendtype = nullptr;
  const Datatype* recvtype = nullptr;
};

Args check(api::Call& call, const void* sendbuf, int sendcount, const int sendcounts[], const int displs[],
           MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           bool v_form) {
  api::RootedArgs r = api::check_rooted(call, comm, root, {recvbuf, recvcount, false, nullptr, nullptr, recvtype, "recv"},
                                        {sendbuf, sendcount, v_form, sendcounts, displs, sendtype, "send"});
  return Args{r.comm, r.root_type, r.everyone_type};
}

}  // namespace

extern "C" int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  api::Call call("MPI_Scatter");
  Args a = check(call, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, comm,
                 false);
  if (!call.ok()) return call.raise();
  return call.result(
      coll::scatter(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm));
}
FERRY_WEAK_ALIAS(Scatter)

extern "C" int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Iscatter");
  Args a = check(call, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, comm,
                 false);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::iscatter(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Iscatter)

extern "C" int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  api::Call call("MPI_Scatterv");
  Args a = check(call, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, true);
  if (!call.ok()) return call.raise();
  return call.result(
      coll::scatterv(sendbuf, sendcounts, displs, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm));
}
FERRY_WEAK_ALIAS(Scatterv)

extern "C" int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Iscatterv");
  Args a = check(call, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, true);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e =
      coll::iscatterv(sendbuf, sendcounts, displs, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Iscatterv)
