// Partitioned communication (MPI-4.0 §4): MPI_Psend_init, MPI_Precv_init,
// MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived. The requests
// are started, completed and freed by the usual calls (MPI_Start, MPI_Wait,
// MPI_Request_free, ...), which reach p2p/partitioned.h through pt2pt.
#include "api/api.h"
#include "p2p/partitioned.h"

using namespace ferry;

namespace {

// The checks both init calls share; returns the communicator, or nullptr.
Communicator* check_init(api::Call& call, const void* buf, int partitions, MPI_Count count, MPI_Datatype type,
                         int peer, const char* peer_argument, int tag, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request, const Datatype** t) {
  Communicator* c = call.comm(comm);
  if (c == nullptr) return nullptr;
  *t = call.datatype(type);
  if (!call.movable(*t)) return nullptr;
  if (count < 0) {
    call.fail(MPI_ERR_COUNT, "invalid count %lld (must be >= 0)", static_cast<long long>(count));
    return nullptr;
  }
  // MPICH's rule: partitions may be 0 only for an empty message.
  if (partitions < 0 || (partitions == 0 && count > 0)) {
    call.fail(MPI_ERR_ARG, "invalid partitions %d (must be > 0)", partitions);
    return nullptr;
  }
  int elements = count > 0 && partitions > 0 ? 1 : 0;  // whether the buffer is read at all
  // Partitioned requests name one peer: no MPI_ANY_SOURCE, no MPI_ANY_TAG
  // (MPI-4.0 §4.2.2).
  if (!call.buffer(buf, elements, *t) || !call.rank(peer, *c, api::RankUse::kDestination, peer_argument) ||
      !call.tag(tag, false) || api::checked_hints(call, info) == nullptr || !call.not_null(request, "request"))
    return nullptr;
  return c;
}

// The partitioned request behind a handle, of the kind wanted; nullptr after
// recording MPI_ERR_REQUEST.
Request* partitioned_request(api::Call& call, MPI_Request handle, Request::Kind kind, const char* what) {
  if (!call.initialized()) return nullptr;
  Request* r = handle == MPI_REQUEST_NULL ? nullptr : requests::find(handle);
  if (r == nullptr || !partitioned::is_partitioned(r) || r->kind != kind) {
    call.fail(MPI_ERR_REQUEST, "request 0x%x is not %s", static_cast<unsigned>(handle), what);
    return nullptr;
  }
  call.use_errhandler_of(r->comm);
  return r;
}

Request* send_request(api::Call& call, MPI_Request handle) {
  return partitioned_request(call, handle, Request::Kind::kSend, "a partitioned send request (MPI_Psend_init)");
}

}  // namespace

extern "C" int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call("MPI_Psend_init");
  const Datatype* t = nullptr;
  Communicator* c =
      check_init(call, buf, partitions, count, datatype, dest, "destination rank", tag, comm, info, request, &t);
  if (c == nullptr) return call.raise();
  Request* r = nullptr;
  if (Err e = partitioned::send_init(buf, partitions, count, t, dest, tag, c, &r)) return call.result(std::move(e));
  *request = r->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Psend_init)

extern "C" int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                               int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call("MPI_Precv_init");
  const Datatype* t = nullptr;
  Communicator* c =
      check_init(call, buf, partitions, count, datatype, source, "source rank", tag, comm, info, request, &t);
  if (c == nullptr) return call.raise();
  Request* r = nullptr;
  if (Err e = partitioned::recv_init(buf, partitions, count, t, source, tag, c, &r)) return call.result(std::move(e));
  *request = r->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Precv_init)

extern "C" int PMPI_Pready(int partition, MPI_Request request) {
  api::Call call("MPI_Pready");
  Request* r = send_request(call, request);
  if (r == nullptr) return call.raise();
  return call.result(partitioned::ready(r, partition));
}
FERRY_ENTRY(Pready)

extern "C" int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  api::Call call("MPI_Pready_range");
  Request* r = send_request(call, request);
  if (r == nullptr) return call.raise();
  return call.result(partitioned::ready_range(r, partition_low, partition_high));
}
FERRY_ENTRY(Pready_range)

extern "C" int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request) {
  api::Call call("MPI_Pready_list");
  Request* r = send_request(call, request);
  if (r == nullptr || (length > 0 && !call.not_null(array_of_partitions, "array_of_partitions")))
    return call.raise();
  return call.result(partitioned::ready_list(r, length, array_of_partitions));
}
FERRY_ENTRY(Pready_list)

extern "C" int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  api::Call call("MPI_Parrived");
  if (!call.initialized() || !call.not_null(flag, "flag")) return call.raise();
  // MPICH's answer for the null request: nothing is awaited.
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  Request* r = partitioned_request(call, request, Request::Kind::kRecv, "a partitioned receive request (MPI_Precv_init)");
  if (r == nullptr) return call.raise();
  return call.result(partitioned::arrived(r, partition, flag));
}
FERRY_ENTRY(Parrived)
