// MPI_Barrier, MPI_Ibarrier and MPI_Barrier_init (MPI-3.1 §5.3, §5.12.1;
// MPI-4.0 §6.13).
#include "api/coll_checks.h"
#include "coll/collectives.h"

using namespace ferry;

namespace {

int barrier(const char* name, api::Form form, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Communicator* c = call.comm(comm);
  return api::launch(call, form, info, request, [&](coll::Launch how) { return coll::barrier(c, how); },
                     /*barrier=*/true);
}

}  // namespace

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  return barrier("MPI_Barrier", api::Form::kBlocking, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Barrier)
extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return barrier("MPI_Ibarrier", api::Form::kNonblocking, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ibarrier)
extern "C" int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return barrier("MPI_Barrier_init", api::Form::kPersistent, comm, info, request);
}
FERRY_ENTRY(Barrier_init)
