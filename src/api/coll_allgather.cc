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

// The send side of both forms: MPI_IN_PLACE is allowed on an
// intracommunicator.
FERRY_INLINE const Datatype* check_send(api::Call& call, const Communicator* c, const void* sendbuf,
                                        MPI_Count sendcount, MPI_Datatype sendtype) {
  return api::check_triple(call, sendbuf, sendcount, sendtype, "send", c == nullptr || !c->inter);
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int allgather_checked(const char* name, const void* sendbuf, MPI_Count sendcount,
                                                MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  api::Call call(name);
  Args a;
  a.comm = call.comm(comm);
  a.sendtype = check_send(call, a.comm, sendbuf, sendcount, sendtype);
  a.recvtype = api::check_triple(call, recvbuf, recvcount, recvtype, "recv");
  if (sendbuf != MPI_IN_PLACE) api::check_not_aliased(call, sendbuf, sendcount > 0, recvbuf, recvcount > 0);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::allgather(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, a.comm, how);
  });
}

// The usual blocking call goes straight to the core (api/coll_checks.h, usual_*).
template <api::Form form>
FERRY_INLINE int allgather(const char* name, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request* request) {
  if (api::UsualPair u; form == api::Form::kBlocking && api::usual_pair(comm, sendbuf, sendcount, sendtype, recvbuf,
                                                                        recvcount, recvtype, &u)) [[likely]]
    return api::core_result(name, u.comm,
                            coll::allgather(sendbuf, sendcount, u.sendtype, recvbuf, recvcount, u.recvtype, u.comm));
  return allgather_checked<form>(name, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
}

// Each receive block is checked at its own displacement.
int allgatherv(const char* name, api::Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
               void* recvbuf, coll::CountArray recvcounts, coll::DisplArray displs, MPI_Datatype recvtype,
               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Args a;
  a.comm = call.comm(comm);
  a.sendtype = check_send(call, a.comm, sendbuf, sendcount, sendtype);
  const int blocks = a.comm != nullptr ? a.comm->peer_count() : 0;
  a.recvtype = api::check_v_triple(call, recvbuf, recvcounts, displs, blocks, recvtype, "recv");
  if (call.ok() && sendbuf != MPI_IN_PLACE)
    api::check_not_aliased(call, sendbuf, sendcount > 0, recvbuf, api::largest_count(recvcounts, blocks) > 0);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::allgatherv(sendbuf, sendcount, a.sendtype, recvbuf, recvcounts, displs, a.recvtype, a.comm, how);
  });
}

}  // namespace

extern "C" int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather<api::Form::kBlocking>("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Allgather)
extern "C" int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather<api::Form::kNonblocking>("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iallgather)
extern "C" int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  return allgather<api::Form::kPersistent>("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, comm, info, request);
}
FERRY_ENTRY(Allgather_init)
extern "C" int PMPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather<api::Form::kBlocking>("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Allgather_c)
extern "C" int PMPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather<api::Form::kNonblocking>("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iallgather_c)
extern "C" int PMPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  return allgather<api::Form::kPersistent>("MPI_Allgather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, comm, info, request);
}
FERRY_ENTRY(Allgather_init_c)

extern "C" int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv("MPI_Allgatherv", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
    recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Allgatherv)
extern "C" int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request* request) {
  return allgatherv("MPI_Iallgatherv", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
    displs, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iallgatherv)
extern "C" int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request* request) {
  return allgatherv("MPI_Allgatherv_init", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
    displs, recvtype, comm, info, request);
}
FERRY_ENTRY(Allgatherv_init)
extern "C" int PMPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                 MPI_Comm comm) {
  return allgatherv("MPI_Allgatherv_c", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
    recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Allgatherv_c)
extern "C" int PMPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Request* request) {
  return allgatherv("MPI_Iallgatherv_c", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
    displs, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iallgatherv_c)
extern "C" int PMPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allgatherv("MPI_Allgatherv_init_c", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
    displs, recvtype, comm, info, request);
}
FERRY_ENTRY(Allgatherv_init_c)
