// The reductions (MPI-3.1 §5.9-5.11): MPI_Allreduce, MPI_Reduce,
// MPI_Reduce_scatter(_block), MPI_Scan, MPI_Exscan and their nonblocking
// forms (§5.12). The algorithms live in src/coll.
//
// What is checked here: the communicator, counts, datatypes, the operation
// (MPI_ERR_OP, also when it is not defined for the datatype), the root
// (MPI_ERR_ROOT), NULL buffers and a send buffer that is the receive buffer
// without MPI_IN_PLACE (MPI_ERR_BUFFER), and MPI_IN_PLACE where the standard
// forbids it. Mismatches between ranks cannot be seen locally. Different
// counts (or types of different sizes) are caught where a message arrives:
// a longer one than the schedule expects fails as MPI_ERR_TRUNCATE, a
// shorter one as MPI_ERR_OTHER (coll/schedule.cc), and the schedule runs to
// its end so the other ranks are not left waiting. Different roots, ops or
// communicators change who talks to whom and are not detected: they can
// hang.
#include <climits>

#include "api/api.h"
#include "api/coll_checks.h"
#include "coll/collectives.h"
#include "base/op.h"

using namespace ferry;

namespace {

// The operation behind `handle`, checked against `type`; nullptr after
// recording the error.
const Op* checked_op(api::Call& call, MPI_Op handle, const Datatype* type) {
  if (!call.ok()) return nullptr;
  const Op* op = find_op(handle);
  if (op == nullptr) {
    if (handle == MPI_OP_NULL) call.fail(MPI_ERR_OP, "op is MPI_OP_NULL");
    else call.fail(MPI_ERR_OP, "invalid op handle 0x%x", static_cast<unsigned>(handle));
    return nullptr;
  }
  if (Err e = check_op(*op, *type)) {
    call.fail(std::move(e));
    return nullptr;
  }
  return op;
}

// The checks shared by every reduction: the communicator, a datatype that
// can be moved, and an operation defined for it.
struct Checked {
  Communicator* comm = nullptr;
  const Datatype* type = nullptr;
  const Op* op = nullptr;
};

Checked check_common(api::Call& call, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op, bool inter_ok = false) {
  Checked c;
  c.comm = inter_ok ? call.comm(comm) : call.intracomm(comm);
  c.type = call.datatype(datatype);
  if (c.type != nullptr) call.movable(c.type);
  c.op = checked_op(call, op, c.type);
  return c;
}

// MPI_IN_PLACE has no meaning across an intercommunicator (MPI-3.1 §5.2.2).
void check_inter_not_in_place(api::Call& call, const Checked& c, const void* sendbuf) {
  if (call.ok() && c.comm->inter && sendbuf == MPI_IN_PLACE)
    call.fail(MPI_ERR_ARG, "sendbuf is MPI_IN_PLACE, which an intercommunicator does not allow");
}

// NULL buffers with elements to move, and sendbuf == recvbuf without
// MPI_IN_PLACE: MPI forbids aliased arguments of which one is written
// (MPI_IN_PLACE is how to reduce in place). Partial overlaps are not detected.
bool check_buffers(api::Call& call, const void* sendbuf, int send_elements, const void* recvbuf,
                   int recv_elements, bool recv_significant = true) {
  if (sendbuf != MPI_IN_PLACE) call.buffer(sendbuf, send_elements, "sendbuf");
  if (recv_significant) call.buffer(recvbuf, recv_elements, "recvbuf");
  if (call.ok() && recv_significant && sendbuf == recvbuf && send_elements > 0 && recv_elements > 0)
    call.fail(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE to reduce in place)");
  return call.ok();
}

}  // namespace

// --- Allreduce (§5.9.6) ---------------------------------------------------------

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  api::Call call("MPI_Allreduce");
  call.count(count);
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  check_buffers(call, sendbuf, count, recvbuf, count);
  if (!call.ok()) return call.raise();
  return call.result(coll::allreduce(sendbuf, recvbuf, count, c.type, c.op, c.comm));
}
FERRY_WEAK_ALIAS(Allreduce)

extern "C" int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Iallreduce");
  call.count(count);
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  check_buffers(call, sendbuf, count, recvbuf, count);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::iallreduce(sendbuf, recvbuf, count, c.type, c.op, c.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Iallreduce)

// --- Reduce (§5.9.1) ------------------------------------------------------------

namespace {

// MPI_Reduce's own checks: the root, and buffers that matter only at it.
void check_reduce(api::Call& call, const Checked& c, const void* sendbuf, void* recvbuf, int count, int root) {
  if (!call.ok()) return;
  if (c.comm->inter) {
    // MPI_ROOT receives, the remote group sends, MPI_PROC_NULL does nothing.
    if (!api::check_root(call, root, c.comm) || root == MPI_PROC_NULL) return;
    check_inter_not_in_place(call, c, sendbuf);
    if (root == MPI_ROOT) call.buffer(recvbuf, count, "recvbuf");
    else call.buffer(sendbuf, count, "sendbuf");
    return;
  }
  if (root < 0 || root >= c.comm->size) {
    call.fail(MPI_ERR_ROOT, "invalid root %d (communicator size %d)", root, c.comm->size);
    return;
  }
  const bool is_root = c.comm->rank == root;
  if (sendbuf == MPI_IN_PLACE && !is_root) {
    call.fail(MPI_ERR_BUFFER, "sendbuf is MPI_IN_PLACE on rank %d, which is not the root (%d)", c.comm->rank, root);
    return;
  }
  check_buffers(call, sendbuf, count, recvbuf, count, is_root);
}

}  // namespace

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm) {
  api::Call call("MPI_Reduce");
  call.count(count);
  Checked c = check_common(call, comm, datatype, op, true);
  check_reduce(call, c, sendbuf, recvbuf, count, root);
  if (!call.ok()) return call.raise();
  return call.result(coll::reduce(sendbuf, recvbuf, count, c.type, c.op, root, c.comm));
}
FERRY_WEAK_ALIAS(Reduce)

extern "C" int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Ireduce");
  call.count(count);
  Checked c = check_common(call, comm, datatype, op, true);
  check_reduce(call, c, sendbuf, recvbuf, count, root);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::ireduce(sendbuf, recvbuf, count, c.type, c.op, root, c.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Ireduce)

// --- Reduce_scatter_block and Reduce_scatter (§5.10) ------------------------------

namespace {

// recvcounts: one count >= 0 per rank. Returns their sum (the number of
// elements each rank contributes), or -1 after recording the error.
long long check_recvcounts(api::Call& call, const Communicator* comm, const int recvcounts[]) {
  if (!call.ok() || !call.not_null(recvcounts, "recvcounts")) return -1;
  long long total = 0;
  for (int r = 0; r < comm->size; ++r) {
    if (recvcounts[r] < 0) {
      call.fail(MPI_ERR_COUNT, "invalid recvcounts[%d] %d (must be >= 0)", r, recvcounts[r]);
      return -1;
    }
    total += recvcounts[r];
  }
  // Scratch and message sizes are ints of elements.
  if (total > INT_MAX) {
    call.fail(MPI_ERR_COUNT, "recvcounts sum to %lld elements, more than %d", total, INT_MAX);
    return -1;
  }
  return total;
}

}  // namespace

extern "C" int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm) {
  api::Call call("MPI_Reduce_scatter_block");
  call.count(recvcount, "recvcount");
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  if (call.ok() && static_cast<long long>(recvcount) * c.comm->size > INT_MAX)
    call.fail(MPI_ERR_COUNT, "recvcount %d times %d ranks is more than %d elements", recvcount, c.comm->size, INT_MAX);
  if (call.ok()) check_buffers(call, sendbuf, recvcount * c.comm->size, recvbuf, recvcount);
  if (!call.ok()) return call.raise();
  return call.result(coll::reduce_scatter_block(sendbuf, recvbuf, recvcount, c.type, c.op, c.comm));
}
FERRY_WEAK_ALIAS(Reduce_scatter_block)

extern "C" int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Ireduce_scatter_block");
  call.count(recvcount, "recvcount");
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  if (call.ok() && static_cast<long long>(recvcount) * c.comm->size > INT_MAX)
    call.fail(MPI_ERR_COUNT, "recvcount %d times %d ranks is more than %d elements", recvcount, c.comm->size, INT_MAX);
  if (call.ok()) check_buffers(call, sendbuf, recvcount * c.comm->size, recvbuf, recvcount);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::ireduce_scatter_block(sendbuf, recvbuf, recvcount, c.type, c.op, c.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Ireduce_scatter_block)

extern "C" int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm) {
  api::Call call("MPI_Reduce_scatter");
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  long long total = check_recvcounts(call, c.comm, recvcounts);
  if (call.ok()) check_buffers(call, sendbuf, static_cast<int>(total), recvbuf, recvcounts[c.comm->rank]);
  if (!call.ok()) return call.raise();
  return call.result(coll::reduce_scatter(sendbuf, recvbuf, recvcounts, c.type, c.op, c.comm));
}
FERRY_WEAK_ALIAS(Reduce_scatter)

extern "C" int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Ireduce_scatter");
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  long long total = check_recvcounts(call, c.comm, recvcounts);
  if (call.ok()) check_buffers(call, sendbuf, static_cast<int>(total), recvbuf, recvcounts[c.comm->rank]);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::ireduce_scatter(sendbuf, recvbuf, recvcounts, c.type, c.op, c.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Ireduce_scatter)

// --- Scan and Exscan (§5.11) ----------------------------------------------------

extern "C" int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  api::Call call("MPI_Scan");
  call.count(count);
  Checked c = check_common(call, comm, datatype, op);
  check_buffers(call, sendbuf, count, recvbuf, count);
  if (!call.ok()) return call.raise();
  return call.result(coll::scan(sendbuf, recvbuf, count, c.type, c.op, c.comm));
}
FERRY_WEAK_ALIAS(Scan)

extern "C" int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Iscan");
  call.count(count);
  Checked c = check_common(call, comm, datatype, op);
  check_buffers(call, sendbuf, count, recvbuf, count);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::iscan(sendbuf, recvbuf, count, c.type, c.op, c.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Iscan)

extern "C" int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm) {
  api::Call call("MPI_Exscan");
  call.count(count);
  Checked c = check_common(call, comm, datatype, op);
  check_buffers(call, sendbuf, count, recvbuf, count);
  if (!call.ok()) return call.raise();
  return call.result(coll::exscan(sendbuf, recvbuf, count, c.type, c.op, c.comm));
}
FERRY_WEAK_ALIAS(Exscan)

extern "C" int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request* request) {
  api::Call call("MPI_Iexscan");
  call.count(count);
  Checked c = check_common(call, comm, datatype, op);
  check_buffers(call, sendbuf, count, recvbuf, count);
  call.not_null(request, "request");
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = coll::iexscan(sendbuf, recvbuf, count, c.type, c.op, c.comm, &r);
  return api::finish_nonblocking(call, std::move(e), r, request);
}
FERRY_WEAK_ALIAS(Iexscan)
