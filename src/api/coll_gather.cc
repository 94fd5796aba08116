// MPI_Gather, MPI_Gatherv and their nonblocking forms (MPI-3.1 §5.5,
// §5.12.3).
//
// Checked here: the communicator and the root (MPI_ERR_ROOT); everywhere
// the send count, type and buffer; at the root the receive count (counts
// and displacements for the v form), type and buffer, MPI_IN_PLACE as
// sendbuf (allowed at the root only, else MPI_ERR_ARG) and sendbuf ==
// recvbuf without it (MPI_ERR_BUFFER). The receive arguments are not
// significant elsewhere and are not looked at. Ranks that disagree on
// counts or the root: a block longer than the root expects fails with
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

// `recvcounts` is null for MPI_Gather, whose count is `recvcount`.
Args check(api::Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
           MPI_Comm comm, bool v_form) {
  api::RootedArgs r = api::check_rooted(call, comm, root, {sendbuf, sendcount, false, nullptr, nullptr, sendtype, "send"},
                                        {recvbuf, recvcount, v_form, recvcounts, displs, recvtype, "recv"});
  return Args{r.comm, r.everyone_type, r.root_type};
}

}  // namespace

extern "C" int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  api::Call call("MPI_Gather");
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, root, comm,
                 false);
  if (!call.ok()) return call.raise();
  return call.result(
      coll::gather(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm));
}
FERRY_WEAK_ALIAS(Gather)

extern "C" int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Igather");
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, root, comm,
                 false);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::igather(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Igather)

extern "C" int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  api::Call call("MPI_Gatherv");
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, true);
  if (!call.ok()) return call.raise();
  return call.result(
      coll::gatherv(sendbuf, sendcount, a.sendtype, recvbuf, recvcounts, displs, a.recvtype, root, a.comm));
}
FERRY_WEAK_ALIAS(Gatherv)

extern "C" int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Igatherv");
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, true);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::igatherv(sendbuf, sendcount, a.sendtype, recvbuf, recvcounts, displs, a.recvtype, root, a.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Igatherv)
