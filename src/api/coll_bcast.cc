// MPI_Bcast, MPI_Ibcast and MPI_Bcast_init (MPI-3.1 §5.4, §5.12.2; MPI-4.0
// §6.13), each also with an MPI_Count count (_c, MPI-4.0 §6.2.2).
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

FERRY_INLINE Args check(api::Call& call, void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                        MPI_Comm comm) {
  Args a{call.comm(comm), nullptr};
  if (a.comm != nullptr) api::check_root(call, root, a.comm);
  // On an intercommunicator, the root's partners (MPI_PROC_NULL) pass
  // nothing significant.
  if (call.ok() && a.comm->inter && root == MPI_PROC_NULL) return a;
  a.type = api::check_triple(call, buffer, count, datatype, "");
  return a;
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int bcast_checked(const char* name, void* buffer, MPI_Count count, MPI_Datatype datatype,
                                            int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Args a = check(call, buffer, count, datatype, root, comm);
  return api::launch(call, form, info, request,
                     [&](coll::Launch how) { return coll::bcast(buffer, count, a.type, root, a.comm, how); });
}

// The usual blocking call goes straight to the core (api/coll_checks.h, usual_*).
template <api::Form form>
FERRY_INLINE int bcast(const char* name, void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request* request) {
  if (form == api::Form::kBlocking)
    if (Communicator* c = api::usual_intracomm(comm); c != nullptr && root >= 0 && root < c->size)
      if (const Datatype* t = api::usual_triple(buffer, count, datatype)) [[likely]]
        return api::core_result(name, c, coll::bcast(buffer, count, t, root, c));
  return bcast_checked<form>(name, buffer, count, datatype, root, comm, info, request);
}

}  // namespace

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast<api::Form::kBlocking>("MPI_Bcast", buffer, count, datatype, root, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Bcast)
extern "C" int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request* request) {
  return bcast<api::Form::kNonblocking>("MPI_Ibcast", buffer, count, datatype, root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ibcast)
extern "C" int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                               MPI_Info info, MPI_Request* request) {
  return bcast<api::Form::kPersistent>("MPI_Bcast_init", buffer, count, datatype, root, comm, info, request);
}
FERRY_ENTRY(Bcast_init)
extern "C" int PMPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast<api::Form::kBlocking>("MPI_Bcast_c", buffer, count, datatype, root, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Bcast_c)
extern "C" int PMPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                             MPI_Request* request) {
  return bcast<api::Form::kNonblocking>("MPI_Ibcast_c", buffer, count, datatype, root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ibcast_c)
extern "C" int PMPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  return bcast<api::Form::kPersistent>("MPI_Bcast_init_c", buffer, count, datatype, root, comm, info, request);
}
FERRY_ENTRY(Bcast_init_c)
