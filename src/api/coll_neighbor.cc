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

int largest(const int counts[], int n) {
  int most = 0;
  for (int i = 0; i < n; ++i) most = counts[i] > most ? counts[i] : most;
  return most;
}

// The w form's counts and byte displacements.
bool check_w_counts(api::Call& call, const int counts[], const MPI_Aint displs[], int n, const char* what) {
  if (!call.ok()) return false;
  if (n > 0 && (counts == nullptr || displs == nullptr))
    return call.fail(MPI_ERR_ARG, "%scounts or %sdispls is NULL", what, what);
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0) return call.fail(MPI_ERR_COUNT, "invalid %scounts[%d] %d (must be >= 0)", what, i, counts[i]);
  return true;
}

// Runs the blocking form (request == nullptr) or starts the nonblocking one.
template <typename Start>
int finish(api::Call& call, MPI_Request* request, Start start) {
  if (request == nullptr) return call.result(start(nullptr));
  Request* r = nullptr;
  Err e = start(&r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}

int allgather(const char* name, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request, bool nonblocking) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  const Datatype* st = api::check_triple(call, sendbuf, sendcount, sendtype, "send");
  const Datatype* rt = api::check_triple(call, recvbuf, recvcount, recvtype, "recv");
  if (nonblocking) call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  return finish(call, request, [&](Request** r) {
    return coll::neighbor_allgather(sendbuf, sendcount, st, recvbuf, recvcount, rt, n.comm, r);
  });
}

int allgatherv(const char* name, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
               MPI_Request* request, bool nonblocking) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  const Datatype* st = api::check_triple(call, sendbuf, sendcount, sendtype, "send");
  int most = api::check_counts(call, recvcounts, displs, n.in, "recv") ? largest(recvcounts, n.in) : 0;
  const Datatype* rt = api::check_triple(call, recvbuf, most, recvtype, "recv");
  if (nonblocking) call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  return finish(call, request, [&](Request** r) {
    return coll::neighbor_allgatherv(sendbuf, sendcount, st, recvbuf, recvcounts, displs, rt, n.comm, r);
  });
}

int alltoall(const char* name, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request, bool nonblocking) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  const Datatype* st = api::check_triple(call, sendbuf, sendcount, sendtype, "send");
  const Datatype* rt = api::check_triple(call, recvbuf, recvcount, recvtype, "recv");
  if (nonblocking) call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  return finish(call, request, [&](Request** r) {
    return coll::neighbor_alltoall(sendbuf, sendcount, st, recvbuf, recvcount, rt, n.comm, r);
  });
}

int alltoallv(const char* name, const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request, bool nonblocking) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  int send_most = api::check_counts(call, sendcounts, sdispls, n.out, "send") ? largest(sendcounts, n.out) : 0;
  int recv_most = api::check_counts(call, recvcounts, rdispls, n.in, "recv") ? largest(recvcounts, n.in) : 0;
  const Datatype* st = api::check_triple(call, sendbuf, send_most, sendtype, "send");
  const Datatype* rt = api::check_triple(call, recvbuf, recv_most, recvtype, "recv");
  if (nonblocking) call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  return finish(call, request, [&](Request** r) {
    return coll::neighbor_alltoallv(sendbuf, sendcounts, sdispls, st, recvbuf, recvcounts, rdispls, rt, n.comm, r);
  });
}

int alltoallw(const char* name, const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request, bool nonblocking) {
  api::Call call(name);
  Neighborhood n = check_comm(call, comm);
  std::vector<const Datatype*> send_types, recv_types;
  if (check_w_counts(call, sendcounts, sdispls, n.out, "send"))
    api::check_types(call, sendtypes, sendcounts, n.out, "send", &send_types);
  if (check_w_counts(call, recvcounts, rdispls, n.in, "recv"))
    api::check_types(call, recvtypes, recvcounts, n.in, "recv", &recv_types);
  api::check_not_in_place(call, sendbuf, "send");
  api::check_not_in_place(call, recvbuf, "recv");
  if (call.ok()) call.buffer(sendbuf, largest(sendcounts, n.out), "sendbuf");
  if (call.ok()) call.buffer(recvbuf, largest(recvcounts, n.in), "recvbuf");
  if (nonblocking) call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  return finish(call, request, [&](Request** r) {
    return coll::neighbor_alltoallw(sendbuf, sendcounts, sdispls, send_types.data(), recvbuf, recvcounts, rdispls,
                                    recv_types.data(), n.comm, r);
  });
}

}  // namespace

extern "C" int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                   nullptr, false);
}
FERRY_WEAK_ALIAS(Neighbor_allgather)

extern "C" int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                   request, true);
}
FERRY_WEAK_ALIAS(Ineighbor_allgather)

extern "C" int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm) {
  return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                    comm, nullptr, false);
}
FERRY_WEAK_ALIAS(Neighbor_allgatherv)

extern "C" int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Request* request) {
  return allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                    comm, request, true);
}
FERRY_WEAK_ALIAS(Ineighbor_allgatherv)

extern "C" int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, nullptr,
                  false);
}
FERRY_WEAK_ALIAS(Neighbor_alltoall)

extern "C" int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  request, true);
}
FERRY_WEAK_ALIAS(Ineighbor_alltoall)

extern "C" int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm, nullptr, false);
}
FERRY_WEAK_ALIAS(Neighbor_alltoallv)

extern "C" int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  return alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm, request, true);
}
FERRY_WEAK_ALIAS(Ineighbor_alltoallv)

extern "C" int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, nullptr, false);
}
FERRY_WEAK_ALIAS(Neighbor_alltoallw)

extern "C" int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                        MPI_Request* request) {
  return alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, request, true);
}
FERRY_WEAK_ALIAS(Ineighbor_alltoallw)
