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
FERRY_INLINE Args check(api::Call& call, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        MPI_Count recvcount, coll::CountArray recvcounts, coll::DisplArray displs,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, bool v_form) {
  api::RootedArgs r =
      api::check_rooted(call, comm, root, {sendbuf, sendcount, false, nullptr, nullptr, sendtype, "send"},
                        {recvbuf, recvcount, v_form, recvcounts, displs, recvtype, "recv"});
  return Args{r.comm, r.everyone_type, r.root_type};
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int gather_checked(const char* name, const void* sendbuf, MPI_Count sendcount,
                                             MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  api::Call call(name);
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr, recvtype, root, comm,
                 false);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::gather(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm, how);
  });
}

// The usual blocking call goes straight to the core (api/coll_checks.h, usual_*).
template <api::Form form>
FERRY_INLINE int gather(const char* name, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request) {
  if (api::RootedArgs r; form == api::Form::kBlocking && api::usual_rooted(comm, root, sendbuf, sendcount, sendtype,
                                                                           recvbuf, recvcount, recvtype, &r)) [[likely]]
    return api::core_result(
        name, r.comm, coll::gather(sendbuf, sendcount, r.everyone_type, recvbuf, recvcount, r.root_type, root, r.comm));
  return gather_checked<form>(name, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                              request);
}

int gatherv(const char* name, api::Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void* recvbuf, coll::CountArray recvcounts, coll::DisplArray displs, MPI_Datatype recvtype, int root,
            MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Args a = check(call, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype, root, comm, true);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::gatherv(sendbuf, sendcount, a.sendtype, recvbuf, recvcounts, displs, a.recvtype, root, a.comm, how);
  });
}

}  // namespace

extern "C" int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather<api::Form::kBlocking>("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                      comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Gather)
extern "C" int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gather<api::Form::kNonblocking>("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Igather)
extern "C" int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return gather<api::Form::kPersistent>("MPI_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        root, comm, info, request);
}
FERRY_ENTRY(Gather_init)
extern "C" int PMPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather<api::Form::kBlocking>("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                      comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Gather_c)
extern "C" int PMPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request* request) {
  return gather<api::Form::kNonblocking>("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Igather_c)
extern "C" int PMPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  return gather<api::Form::kPersistent>("MPI_Gather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        root, comm, info, request);
}
FERRY_ENTRY(Gather_init_c)

extern "C" int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  return gatherv("MPI_Gatherv", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
    recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Gatherv)
extern "C" int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request* request) {
  return gatherv("MPI_Igatherv", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
    recvtype, root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Igatherv)
extern "C" int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return gatherv("MPI_Gatherv_init", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
    recvtype, root, comm, info, request);
}
FERRY_ENTRY(Gatherv_init)
extern "C" int PMPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                              MPI_Comm comm) {
  return gatherv("MPI_Gatherv_c", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
    recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Gatherv_c)
extern "C" int PMPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Request* request) {
  return gatherv("MPI_Igatherv_c", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
    recvtype, root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Igatherv_c)
extern "C" int PMPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return gatherv("MPI_Gatherv_init_c", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
    displs, recvtype, root, comm, info, request);
}
FERRY_ENTRY(Gatherv_init_c)
