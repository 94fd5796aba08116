// MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their nonblocking forms
// (MPI-3.1 §5.8, §5.12.6).
//
// Checked here: the communicator; send and receive counts (counts and
// displacements per peer for the v and w forms), datatypes (one per peer
// for the w form; an empty block may name MPI_DATATYPE_NULL) and buffers;
// MPI_IN_PLACE as sendbuf (allowed: the send arguments are then ignored and
// recvbuf is sent and replaced) and as recvbuf (MPI_ERR_ARG); sendbuf ==
// recvbuf without MPI_IN_PLACE (MPI_ERR_BUFFER). Ranks that disagree on
// counts: a block longer than a rank expects fails with MPI_ERR_TRUNCATE, a
// shorter one with MPI_ERR_OTHER (coll/schedule.cc).
#include <vector>

#include "api/coll_checks.h"
#include "coll/collectives.h"

using namespace ferry;

namespace {

struct Args {
  Communicator* comm = nullptr;
  const Datatype* sendtype = nullptr;
  const Datatype* recvtype = nullptr;
};

// MPI_Alltoall, and MPI_Alltoallv when the count arrays are given (each
// block then checked at its own displacement).
FERRY_INLINE Args check(api::Call& call, const void* sendbuf, MPI_Count sendcount, coll::CountArray sendcounts,
                        coll::DisplArray sdispls, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                        coll::CountArray recvcounts, coll::DisplArray rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                        bool v_form) {
  Args a;
  a.comm = call.comm(comm);
  if (!call.ok()) return a;
  const int p = a.comm->peer_count();
  if (a.comm->inter) api::check_not_in_place(call, sendbuf, "send");
  if (v_form) {
    a.sendtype = api::check_v_triple(call, sendbuf, sendcounts, sdispls, p, sendtype, "send", true);
    a.recvtype = api::check_v_triple(call, recvbuf, recvcounts, rdispls, p, recvtype, "recv");
    if (!call.ok()) return a;
    if (sendbuf != MPI_IN_PLACE) sendcount = api::largest_count(sendcounts, p);
    recvcount = api::largest_count(recvcounts, p);
  } else {
    a.sendtype = api::check_triple(call, sendbuf, sendcount, sendtype, "send", true);
    a.recvtype = api::check_triple(call, recvbuf, recvcount, recvtype, "recv");
  }
  if (sendbuf != MPI_IN_PLACE) api::check_not_aliased(call, sendbuf, sendcount > 0, recvbuf, recvcount > 0);
  return a;
}

// MPI_Alltoallw: per-peer datatypes into `sendtypes` and `recvtypes`; each
// block checked with its own type at its byte displacement (MPI_BOTTOM with
// absolute displacements is valid, mpi4py's testAlltoallwBottom).
Communicator* check_w(api::Call& call, const void* sendbuf, coll::CountArray sendcounts, coll::DisplArray sdispls,
                      const MPI_Datatype sendtypes[], void* recvbuf, coll::CountArray recvcounts,
                      coll::DisplArray rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm,
                      std::vector<const Datatype*>* send_types, std::vector<const Datatype*>* recv_types) {
  Communicator* c = call.comm(comm);
  if (!call.ok()) return c;
  const int p = c->peer_count();
  if (c->inter) api::check_not_in_place(call, sendbuf, "send");
  if (sendbuf != MPI_IN_PLACE) {
    api::check_counts(call, sendcounts, sdispls, p, "send");
    api::check_types(call, sendtypes, sendcounts, p, "send", send_types);
    api::check_w_blocks(call, sendbuf, sendcounts, sdispls, *send_types, p, "send");
  }
  api::check_counts(call, recvcounts, rdispls, p, "recv");
  api::check_types(call, recvtypes, recvcounts, p, "recv", recv_types);
  api::check_not_in_place(call, recvbuf, "recv");
  api::check_w_blocks(call, recvbuf, recvcounts, rdispls, *recv_types, p, "recv");
  if (call.ok() && sendbuf != MPI_IN_PLACE)
    api::check_not_aliased(call, sendbuf, api::largest_count(sendcounts, p) > 0, recvbuf,
                           api::largest_count(recvcounts, p) > 0);
  return c;
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int alltoall_checked(const char* name, const void* sendbuf, MPI_Count sendcount,
                                               MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                               MPI_Request* request) {
  api::Call call(name);
  Args a = check(call, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, recvcount, nullptr, nullptr,
                 recvtype, comm, false);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::alltoall(sendbuf, sendcount, a.sendtype, recvbuf, recvcount, a.recvtype, a.comm, how);
  });
}

// The usual blocking call goes straight to the core (api/coll_checks.h, usual_*).
template <api::Form form>
FERRY_INLINE int alltoall(const char* name, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  if (api::UsualPair u; form == api::Form::kBlocking && api::usual_pair(comm, sendbuf, sendcount, sendtype, recvbuf,
                                                                        recvcount, recvtype, &u)) [[likely]]
    return api::core_result(name, u.comm,
                            coll::alltoall(sendbuf, sendcount, u.sendtype, recvbuf, recvcount, u.recvtype, u.comm));
  return alltoall_checked<form>(name, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
}

int alltoallv(const char* name, api::Form form, const void* sendbuf, coll::CountArray sendcounts,
              coll::DisplArray sdispls, MPI_Datatype sendtype, void* recvbuf, coll::CountArray recvcounts,
              coll::DisplArray rdispls, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Args a = check(call, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm,
                 true);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::alltoallv(sendbuf, sendcounts, sdispls, a.sendtype, recvbuf, recvcounts, rdispls, a.recvtype,
                           a.comm, how);
  });
}

// The schedule holds its own reference on each type (coll/schedule.h), so
// the translated arrays need only last for the call.
int alltoallw(const char* name, api::Form form, const void* sendbuf, coll::CountArray sendcounts,
              coll::DisplArray sdispls, const MPI_Datatype sendtypes[], void* recvbuf, coll::CountArray recvcounts,
              coll::DisplArray rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
              MPI_Request* request) {
  api::Call call(name);
  std::vector<const Datatype*> send_types, recv_types;
  Communicator* c = check_w(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                            comm, &send_types, &recv_types);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::alltoallw(sendbuf, sendcounts, sdispls, send_types.data(), recvbuf, recvcounts, rdispls,
                           recv_types.data(), c, how);
  });
}

}  // namespace

extern "C" int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall<api::Form::kBlocking>("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Alltoall)
extern "C" int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall<api::Form::kNonblocking>("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                           comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ialltoall)
extern "C" int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  return alltoall<api::Form::kPersistent>("MPI_Alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, comm, info, request);
}
FERRY_ENTRY(Alltoall_init)
extern "C" int PMPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall<api::Form::kBlocking>("MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Alltoall_c)
extern "C" int PMPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall<api::Form::kNonblocking>("MPI_Ialltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ialltoall_c)
extern "C" int PMPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  return alltoall<api::Form::kPersistent>("MPI_Alltoall_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, comm, info, request);
}
FERRY_ENTRY(Alltoall_init_c)

extern "C" int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                              void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  return alltoallv("MPI_Alltoallv", api::Form::kBlocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
    rdispls, recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Alltoallv)
extern "C" int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                               void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  return alltoallv("MPI_Ialltoallv", api::Form::kNonblocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
    recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ialltoallv)
extern "C" int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return alltoallv("MPI_Alltoallv_init", api::Form::kPersistent, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
    recvcounts, rdispls, recvtype, comm, info, request);
}
FERRY_ENTRY(Alltoallv_init)
extern "C" int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv("MPI_Alltoallv_c", api::Form::kBlocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
    rdispls, recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Alltoallv_c)
extern "C" int PMPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoallv("MPI_Ialltoallv_c", api::Form::kNonblocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
    recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ialltoallv_c)
extern "C" int PMPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  return alltoallv("MPI_Alltoallv_init_c", api::Form::kPersistent, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
    recvcounts, rdispls, recvtype, comm, info, request);
}
FERRY_ENTRY(Alltoallv_init_c)

extern "C" int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw("MPI_Alltoallw", api::Form::kBlocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
    rdispls, recvtypes, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Alltoallw)
extern "C" int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                               const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request* request) {
  return alltoallw("MPI_Ialltoallw", api::Form::kNonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
    recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ialltoallw)
extern "C" int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  return alltoallw("MPI_Alltoallw_init", api::Form::kPersistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
    recvcounts, rdispls, recvtypes, comm, info, request);
}
FERRY_ENTRY(Alltoallw_init)
extern "C" int PMPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw("MPI_Alltoallw_c", api::Form::kBlocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
    recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Alltoallw_c)
extern "C" int PMPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Request* request) {
  return alltoallw("MPI_Ialltoallw_c", api::Form::kNonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
    recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ialltoallw_c)
extern "C" int PMPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                     MPI_Info info, MPI_Request* request) {
  return alltoallw("MPI_Alltoallw_init_c", api::Form::kPersistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
    recvcounts, rdispls, recvtypes, comm, info, request);
}
FERRY_ENTRY(Alltoallw_init_c)
