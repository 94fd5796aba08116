// MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w) and their
// nonblocking forms (MPI-3.1 §7.6, §7.7).
//
// Checked here: the communicator and its topology (MPI_ERR_TOPOLOGY without
// one); counts, datatypes and buffers as for the other collectives, with one
// block per in-neighbour received and (alltoall) one per out-neighbour sent;
// the v and w forms' arrays not NULL; MPI_IN_PLACE is not allowed
// (MPI_ERR_ARG).
#include <vector>

#include "api/coll_checks.h"
#include "coll/collectives.h"

using namespace ferry;

namespace {

struct Neighborhood {
  Communicator* comm = nullptr;
  int in = 0;   // blocks received
  int out = 0;  // blocks sent (alltoall forms)
};

Neighborhood check_comm(api::Call& call, MPI_Comm comm) {
  Neighborhood n;
  n.comm = call.intracomm(comm);
  if (n.comm == nullptr) return n;
  if (!n.comm->topology) {
    call.fail(MPI_ERR_TOPOLOGY, "the communicator has no process topology (MPI_Cart_create, MPI_Dist_graph_create...)");
    return n;
  }
  n.in = static_cast<int>(n.comm->topology->in_neighbors(n.comm->rank).size());
  n.out = static_cast<int>(n.comm->topology->out_neighbors(n.comm->rank).size());
  return n;
}

// The w form's counts and byte displacements.
bool check_w_counts(api::Call& call, coll::CountArray counts, coll::DisplArray displs, int n, const char* what) {
  if (!call.ok()) return false;
  if (n > 0 && (counts.null() || displs.null()))
    return call.fail(MPI_ERR_ARG, "%scounts or %sdispls is NULL", what, what);
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0)
      return call.fail(MPI_ERR_COUNT, "invalid %scounts[%d] %lld (must be >= 0)", what, i,
                       static_cast<long long>(counts[i]));
  return true;
}

int allgather(const char* name, api::Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request* request) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  const Datatype* st = api::check_triple(call, sendbuf, sendcount, sendtype, "send");
  const Datatype* rt = api::check_triple(call, recvbuf, recvcount, recvtype, "recv");
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::neighbor_allgather(sendbuf, sendcount, st, recvbuf, recvcount, rt, n.comm, how);
  });
}

int allgatherv(const char* name, api::Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
               void* recvbuf, coll::CountArray recvcounts, coll::DisplArray displs, MPI_Datatype recvtype,
               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  const Datatype* st = api::check_triple(call, sendbuf, sendcount, sendtype, "send");
  const Datatype* rt = api::check_v_triple(call, recvbuf, recvcounts, displs, n.in, recvtype, "recv");
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::neighbor_allgatherv(sendbuf, sendcount, st, recvbuf, recvcounts, displs, rt, n.comm, how);
  });
}

int alltoall(const char* name, api::Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
             MPI_Request* request) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  const Datatype* st = api::check_triple(call, sendbuf, sendcount, sendtype, "send");
  const Datatype* rt = api::check_triple(call, recvbuf, recvcount, recvtype, "recv");
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::neighbor_alltoall(sendbuf, sendcount, st, recvbuf, recvcount, rt, n.comm, how);
  });
}

int alltoallv(const char* name, api::Form form, const void* sendbuf, coll::CountArray sendcounts,
              coll::DisplArray sdispls, MPI_Datatype sendtype, void* recvbuf, coll::CountArray recvcounts,
              coll::DisplArray rdispls, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  const Datatype* st = api::check_v_triple(call, sendbuf, sendcounts, sdispls, n.out, sendtype, "send");
  const Datatype* rt = api::check_v_triple(call, recvbuf, recvcounts, rdispls, n.in, recvtype, "recv");
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::neighbor_alltoallv(sendbuf, sendcounts, sdispls, st, recvbuf, recvcounts, rdispls, rt, n.comm, how);
  });
}

int alltoallw(const char* name, api::Form form, const void* sendbuf, coll::CountArray sendcounts,
              coll::DisplArray sdispls, const MPI_Datatype sendtypes[], void* recvbuf, coll::CountArray recvcounts,
              coll::DisplArray rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
              MPI_Request* request) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  std::vector<const Datatype*> send_types, recv_types;
  if (check_w_counts(call, sendcounts, sdispls, n.out, "send"))
    api::check_types(call, sendtypes, sendcounts, n.out, "send", &send_types);
  if (check_w_counts(call, recvcounts, rdispls, n.in, "recv"))
    api::check_types(call, recvtypes, recvcounts, n.in, "recv", &recv_types);
  api::check_not_in_place(call, sendbuf, "send");
  api::check_not_in_place(call, recvbuf, "recv");
  // Each block with its own type at its byte displacement: MPI_BOTTOM with
  // absolute displacements is valid (mpi4py's testNeighborAlltoallwBottom).
  api::check_w_blocks(call, sendbuf, sendcounts, sdispls, send_types, n.out, "send");
  api::check_w_blocks(call, recvbuf, recvcounts, rdispls, recv_types, n.in, "recv");
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::neighbor_alltoallw(sendbuf, sendcounts, sdispls, send_types.data(), recvbuf, recvcounts, rdispls,
                                    recv_types.data(), n.comm, how);
  });
}

}  // namespace

extern "C" int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather("MPI_Neighbor_allgather", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
    recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_allgather)
extern "C" int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather("MPI_Ineighbor_allgather", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
    recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_allgather)
extern "C" int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request) {
  return allgather("MPI_Neighbor_allgather_init", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf,
    recvcount, recvtype, comm, info, request);
}
FERRY_ENTRY(Neighbor_allgather_init)
extern "C" int PMPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather("MPI_Neighbor_allgather_c", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
    recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_allgather_c)
extern "C" int PMPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request) {
  return allgather("MPI_Ineighbor_allgather_c", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf,
    recvcount, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_allgather_c)
extern "C" int PMPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  return allgather("MPI_Neighbor_allgather_init_c", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf,
    recvcount, recvtype, comm, info, request);
}
FERRY_ENTRY(Neighbor_allgather_init_c)

extern "C" int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm) {
  return allgatherv("MPI_Neighbor_allgatherv", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
    displs, recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_allgatherv)
extern "C" int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Request* request) {
  return allgatherv("MPI_Ineighbor_allgatherv", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf,
    recvcounts, displs, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_allgatherv)
extern "C" int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                             const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allgatherv("MPI_Neighbor_allgatherv_init", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf,
    recvcounts, displs, recvtype, comm, info, request);
}
FERRY_ENTRY(Neighbor_allgatherv_init)
extern "C" int PMPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv("MPI_Neighbor_allgatherv_c", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf,
    recvcounts, displs, recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_allgatherv_c)
extern "C" int PMPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                           void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgatherv("MPI_Ineighbor_allgatherv_c", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf,
    recvcounts, displs, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_allgatherv_c)
extern "C" int PMPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                               void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                               MPI_Request* request) {
  return allgatherv("MPI_Neighbor_allgatherv_init_c", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf,
    recvcounts, displs, recvtype, comm, info, request);
}
FERRY_ENTRY(Neighbor_allgatherv_init_c)

extern "C" int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall("MPI_Neighbor_alltoall", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
    recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_alltoall)
extern "C" int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall("MPI_Ineighbor_alltoall", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
    recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_alltoall)
extern "C" int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request* request) {
  return alltoall("MPI_Neighbor_alltoall_init", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf,
    recvcount, recvtype, comm, info, request);
}
FERRY_ENTRY(Neighbor_alltoall_init)
extern "C" int PMPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall("MPI_Neighbor_alltoall_c", api::Form::kBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
    recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_alltoall_c)
extern "C" int PMPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request) {
  return alltoall("MPI_Ineighbor_alltoall_c", api::Form::kNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount,
    recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_alltoall_c)
extern "C" int PMPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                             MPI_Info info, MPI_Request* request) {
  return alltoall("MPI_Neighbor_alltoall_init_c", api::Form::kPersistent, sendbuf, sendcount, sendtype, recvbuf,
    recvcount, recvtype, comm, info, request);
}
FERRY_ENTRY(Neighbor_alltoall_init_c)

extern "C" int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv("MPI_Neighbor_alltoallv", api::Form::kBlocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
    recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_alltoallv)
extern "C" int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  return alltoallv("MPI_Ineighbor_alltoallv", api::Form::kNonblocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
    recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_alltoallv)
extern "C" int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request) {
  return alltoallv("MPI_Neighbor_alltoallv_init", api::Form::kPersistent, sendbuf, sendcounts, sdispls, sendtype,
    recvbuf, recvcounts, rdispls, recvtype, comm, info, request);
}
FERRY_ENTRY(Neighbor_alltoallv_init)
extern "C" int PMPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                         MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv("MPI_Neighbor_alltoallv_c", api::Form::kBlocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
    recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_alltoallv_c)
extern "C" int PMPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                          MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request) {
  return alltoallv("MPI_Ineighbor_alltoallv_c", api::Form::kNonblocking, sendbuf, sendcounts, sdispls, sendtype,
    recvbuf, recvcounts, rdispls, recvtype, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_alltoallv_c)
extern "C" int PMPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  return alltoallv("MPI_Neighbor_alltoallv_init_c", api::Form::kPersistent, sendbuf, sendcounts, sdispls, sendtype,
    recvbuf, recvcounts, rdispls, recvtype, comm, info, request);
}
FERRY_ENTRY(Neighbor_alltoallv_init_c)

extern "C" int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw("MPI_Neighbor_alltoallw", api::Form::kBlocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
    recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_alltoallw)
extern "C" int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                        MPI_Request* request) {
  return alltoallw("MPI_Ineighbor_alltoallw", api::Form::kNonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
    recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_alltoallw)
extern "C" int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info info, MPI_Request* request) {
  return alltoallw("MPI_Neighbor_alltoallw_init", api::Form::kPersistent, sendbuf, sendcounts, sdispls, sendtypes,
    recvbuf, recvcounts, rdispls, recvtypes, comm, info, request);
}
FERRY_ENTRY(Neighbor_alltoallw_init)
extern "C" int PMPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                         const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw("MPI_Neighbor_alltoallw_c", api::Form::kBlocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
    recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Neighbor_alltoallw_c)
extern "C" int PMPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                          const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                          MPI_Request* request) {
  return alltoallw("MPI_Ineighbor_alltoallw_c", api::Form::kNonblocking, sendbuf, sendcounts, sdispls, sendtypes,
    recvbuf, recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ineighbor_alltoallw_c)
extern "C" int PMPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  return alltoallw("MPI_Neighbor_alltoallw_init_c", api::Form::kPersistent, sendbuf, sendcounts, sdispls, sendtypes,
    recvbuf, recvcounts, rdispls, recvtypes, comm, info, request);
}
FERRY_ENTRY(Neighbor_alltoallw_init_c)
