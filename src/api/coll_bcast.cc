// MPI_Bcast and MPI_Ibcast (MPI-3.1 §5.4, §5.12.2).
//
// Checked here: the communicator, the root (MPI_ERR_ROOT), count, datatype
// and buffer. MPI_IN_PLACE is not a valid buffer (MPI_ERR_ARG). Ranks that
// disagree on the count: a rank that receives more than its count expects
// fails with MPI_ERR_TRUNCATE; disagreeing roots are not detected.
#include "api/coll_checks.h"
#include "coll/collectives.h"

using namespace ferry;

namespace {

struct Args {
  Communicator* comm;
  const Datatype* type;
};

Args check(api::Call& call, void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  Args a{call.comm(comm), nullptr};
  if (a.comm != nullptr) api::check_root(call, root, a.comm);
  // On an intercommunicator, the root's partners (MPI_PROC_NULL) pass
  // nothing significant.
  if (call.ok() && a.comm->inter && root == MPI_PROC_NULL) return a;
  a.type = api::check_triple(call, buffer, count, datatype, "");
  return a;
}

}  // namespace

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  api::Call call("MPI_Bcast");
  Args a = check(call, buffer, count, datatype, root, comm);
  if (!call.ok()) return call.raise();
  return call.result(coll::bcast(buffer, count, a.type, root, a.comm));
}
FERRY_WEAK_ALIAS(Bcast)

extern "C" int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request* request) {
  api::Call call("MPI_Ibcast");
  Args a = check(call, buffer, count, datatype, root, comm);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::ibcast(buffer, count, a.type, root, a.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Ibcast)
