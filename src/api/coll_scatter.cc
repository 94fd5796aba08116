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

FERRY_INLINE Args check(api::Call& call, const void* sendbuf, MPI_Count sendcount, coll::CountArray sendcounts,
                        coll::DisplArray displs, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, bool v_form) {
  api::RootedArgs r =
      api::check_rooted(call, comm, root, {recvbuf, recvcount, false, nullptr, nullptr, recvtype, "recv"},
                        {sendbuf, sendcount, v_form, sendcounts, displs, sendtype, "send"});
  return Args{r.comm, r.root_type, r.everyone_type};
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int scatter_checked(const char* name, const void* sendbuf, MPI_Count sendcount,
                                              MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                              MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  api::Call call(name);
  Args a = check(call, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, comm,
                 false);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::scatter(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm, how);
  });
}

// The usual blocking call goes straight to the core (api/coll_checks.h, usual_*).
template <api::Form form>
FERRY_INLINE int scatter(const char* name, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request) {
  if (api::RootedArgs r; form == api::Form::kBlocking && api::usual_rooted(comm, root, recvbuf, recvcount, recvtype,
                                                                           sendbuf, sendcount, sendtype, &r)) [[likely]]
    return api::core_result(
        name, r.comm,
        coll::scatter(sendbuf, sendcount, r.root_type, recvbuf, recvcount, r.everyone_type, root, r.comm));
  return scatter_checked<form>(name, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                               request);
}

int scatterv(const char* name, api::Form form, const void* sendbuf, coll::CountArray sendcounts,
             coll::DisplArray displs, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Args a = check(call, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, true);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::scatterv(sendbuf, sendcounts, displs, a.sendtype, recvbuf, recvcount, a.recvtype, root, a.comm, how);
  });
}

}  // namespace

extern "C" int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter<api::Form::kBlocking>("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                       comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Scatter)
extern "C" int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return scatter<api::Form::kNonblocking>("MPI_Iscatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                          root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iscatter)
extern "C" int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  return scatter<api::Form::kPersistent>("MPI_Scatter_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         root, comm, info, request);
}
FERRY_ENTRY(Scatter_init)
extern "C" int PMPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter<api::Form::kBlocking>("MPI_Scatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       root, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Scatter_c)
extern "C" int PMPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                               MPI_Request* request) {
  return scatter<api::Form::kNonblocking>("MPI_Iscatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                          root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iscatter_c)
extern "C" int PMPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  return scatter<api::Form::kPersistent>("MPI_Scatter_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                         recvtype, root, comm, info, request);
}
FERRY_ENTRY(Scatter_init_c)

extern "C" int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatterv("MPI_Scatterv", api::Form::kBlocking, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
    recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Scatterv)
extern "C" int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request* request) {
  return scatterv("MPI_Iscatterv", api::Form::kNonblocking, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
    recvtype, root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iscatterv)
extern "C" int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scatterv("MPI_Scatterv_init", api::Form::kPersistent, sendbuf, sendcounts, displs, sendtype, recvbuf,
    recvcount, recvtype, root, comm, info, request);
}
FERRY_ENTRY(Scatterv_init)
extern "C" int PMPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                               MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               int root, MPI_Comm comm) {
  return scatterv("MPI_Scatterv_c", api::Form::kBlocking, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
    recvtype, root, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Scatterv_c)
extern "C" int PMPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm, MPI_Request* request) {
  return scatterv("MPI_Iscatterv_c", api::Form::kNonblocking, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
    recvtype, root, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iscatterv_c)
extern "C" int PMPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scatterv("MPI_Scatterv_init_c", api::Form::kPersistent, sendbuf, sendcounts, displs, sendtype, recvbuf,
    recvcount, recvtype, root, comm, info, request);
}
FERRY_ENTRY(Scatterv_init_c)
