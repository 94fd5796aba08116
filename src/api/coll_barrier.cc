// MPI_Barrier and MPI_Ibarrier (MPI-3.1 §5.3, §5.12.1).
#include "api/coll_checks.h"
#include "coll/collectives.h"

using namespace ferry;

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  api::Call call("MPI_Barrier");
  Communicator* c = call.comm(comm);
  if (c == nullptr) return call.raise();
  return call.result(coll::barrier(c));
}
FERRY_WEAK_ALIAS(Barrier)

extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Ibarrier");
  Communicator* c = call.comm(comm);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::ibarrier(c, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Ibarrier)
