// The reductions (MPI-3.1 §5.9-5.11): MPI_Allreduce, MPI_Reduce,
// MPI_Reduce_scatter(_block), MPI_Scan, MPI_Exscan, their nonblocking
// forms (§5.12) and persistent forms (MPI-4.0 §6.13), each also with
// MPI_Count counts (_c). The algorithms live in src/coll.
//
// What is checked here: the communicator, counts, datatypes, the operation
// (MPI_ERR_OP, also when it is not defined for the datatype), the root
// (MPI_ERR_ROOT), buffers whose data would start at address 0 (NULL is
// also MPI_BOTTOM, valid with a datatype of absolute addresses) and a send
// buffer that is the receive buffer without MPI_IN_PLACE (MPI_ERR_BUFFER),
// and MPI_IN_PLACE where the standard forbids it. Mismatches between ranks cannot be seen locally. Different
// counts (or types of different sizes) are caught where a message arrives:
// a longer one than the schedule expects fails as MPI_ERR_TRUNCATE, a
// shorter one as MPI_ERR_OTHER (coll/schedule.cc), and the schedule runs to
// its end so the other ranks are not left waiting. Different roots, ops or
// communicators change who talks to whom and are not detected: they can
// hang.
#include "api/api.h"
#include "api/coll_checks.h"
#include "coll/collectives.h"
#include "base/op.h"

using namespace ferry;

namespace {

// The operation behind `handle`, checked against `type`; nullptr after
// recording the error.
FERRY_INLINE const Op* checked_op(api::Call& call, MPI_Op handle, const Datatype* type) {
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

FERRY_INLINE Checked check_common(api::Call& call, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op,
                                  bool inter_ok = false) {
  Checked c;
  c.comm = inter_ok ? call.comm(comm) : call.intracomm(comm);
  c.type = call.datatype(datatype);
  if (c.type != nullptr) call.movable(c.type);
  c.op = checked_op(call, op, c.type);
  return c;
}

// MPI_IN_PLACE has no meaning across an intercommunicator (MPI-3.1 §5.2.2).
FERRY_INLINE void check_inter_not_in_place(api::Call& call, const Checked& c, const void* sendbuf) {
  if (call.ok() && c.comm->inter && sendbuf == MPI_IN_PLACE)
    call.fail(MPI_ERR_ARG, "sendbuf is MPI_IN_PLACE, which an intercommunicator does not allow");
}

// Buffers whose data would start at address 0 (Call::buffer: MPI_BOTTOM
// with a datatype of absolute addresses is valid), and sendbuf == recvbuf
// without MPI_IN_PLACE: MPI forbids aliased arguments of which one is
// written (MPI_IN_PLACE is how to reduce in place). Partial overlaps are not
// detected.
// No elements on either side: nothing here can fail (issue 29: the
// calls of 0 elements pass at once).
FERRY_INLINE bool check_buffers(api::Call& call, const Datatype* type, const void* sendbuf, MPI_Count send_elements,
                                const void* recvbuf, MPI_Count recv_elements, bool recv_significant = true) {
  if (send_elements == 0 && recv_elements == 0) return call.ok();
  if (sendbuf != MPI_IN_PLACE) call.buffer(sendbuf, send_elements, type, "sendbuf");
  if (recv_significant) call.buffer(recvbuf, recv_elements, type, "recvbuf");
  if (call.ok() && recv_significant && sendbuf == recvbuf && send_elements > 0 && recv_elements > 0)
    call.fail(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE to reduce in place)");
  return call.ok();
}

// MPI_Reduce's own checks: the root, and buffers that matter only at it.
FERRY_INLINE void check_reduce(api::Call& call, const Checked& c, const void* sendbuf, void* recvbuf, MPI_Count count,
                               int root) {
  if (!call.ok()) return;
  if (c.comm->inter) {
    // MPI_ROOT receives, the remote group sends, MPI_PROC_NULL does nothing.
    if (!api::check_root(call, root, c.comm) || root == MPI_PROC_NULL) return;
    check_inter_not_in_place(call, c, sendbuf);
    if (root == MPI_ROOT) call.buffer(recvbuf, count, c.type, "recvbuf");
    else call.buffer(sendbuf, count, c.type, "sendbuf");
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
  check_buffers(call, c.type, sendbuf, count, recvbuf, count, is_root);
}

// recvcounts: one count >= 0 per rank. Returns their sum (the number of
// elements each rank contributes), or -1 after recording the error.
MPI_Count check_recvcounts(api::Call& call, const Communicator* comm, coll::CountArray recvcounts) {
  if (!call.ok()) return -1;
  if (recvcounts.null()) {
    call.fail(MPI_ERR_ARG, "recvcounts is NULL");
    return -1;
  }
  MPI_Count total = 0;
  for (int r = 0; r < comm->size; ++r) {
    if (recvcounts[r] < 0) {
      call.fail(MPI_ERR_COUNT, "invalid recvcounts[%d] %lld (must be >= 0)", r, static_cast<long long>(recvcounts[r]));
      return -1;
    }
    total += recvcounts[r];
  }
  return total;
}

// The usual blocking reduction of no elements (issue 29: 0-byte and
// sub-element calls): an intracommunicator, a movable type and an operation
// found defined for it, seen in a few compares. Every check of the full
// path passes then (no buffer matters without elements), and the core
// finishes the call at once (coll/at_once.h): no Call is built.
struct Usual {
  Communicator* comm = nullptr;
  const Datatype* type = nullptr;
  const Op* op = nullptr;
};
FERRY_INLINE bool usual_without_elements(api::Form form, MPI_Count count, MPI_Comm comm, MPI_Datatype datatype,
                                         MPI_Op op, Usual* u) {
  if (form != api::Form::kBlocking || count != 0) return false;
  u->comm = api::usual_intracomm(comm);
  u->type = api::usual_type(datatype);
  if (u->comm == nullptr || u->type == nullptr) return false;
  u->op = api::usual_op(op, u->type);
  return u->op != nullptr;
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int allreduce_checked(const char* name, const void* sendbuf, void* recvbuf, MPI_Count count,
                                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  api::Call call(name);
  call.count(count);
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  check_buffers(call, c.type, sendbuf, count, recvbuf, count);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::allreduce(sendbuf, recvbuf, count, c.type, c.op, c.comm, how);
  });
}

template <api::Form form>
FERRY_INLINE int allreduce(const char* name, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (Usual u; usual_without_elements(form, count, comm, datatype, op, &u)) [[likely]]
    return api::core_result(name, u.comm, coll::allreduce(sendbuf, recvbuf, 0, u.type, u.op, u.comm));
  return allreduce_checked<form>(name, sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int reduce_checked(const char* name, const void* sendbuf, void* recvbuf, MPI_Count count,
                                             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  api::Call call(name);
  call.count(count);
  Checked c = check_common(call, comm, datatype, op, true);
  check_reduce(call, c, sendbuf, recvbuf, count, root);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::reduce(sendbuf, recvbuf, count, c.type, c.op, root, c.comm, how);
  });
}

template <api::Form form>
FERRY_INLINE int reduce(const char* name, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  // (MPI_IN_PLACE is the root's alone, even without elements.)
  if (Usual u; usual_without_elements(form, count, comm, datatype, op, &u) && root >= 0 && root < u.comm->size &&
               (sendbuf != MPI_IN_PLACE || root == u.comm->rank)) [[likely]]
    return api::core_result(name, u.comm, coll::reduce(sendbuf, recvbuf, 0, u.type, u.op, root, u.comm));
  return reduce_checked<form>(name, sendbuf, recvbuf, count, datatype, op, root, comm, info, request);
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int reduce_scatter_block_checked(const char* name, const void* sendbuf, void* recvbuf,
                                                           MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                                           MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  call.count(recvcount, "recvcount");
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  if (call.ok()) check_buffers(call, c.type, sendbuf, recvcount * c.comm->size, recvbuf, recvcount);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::reduce_scatter_block(sendbuf, recvbuf, recvcount, c.type, c.op, c.comm, how);
  });
}

template <api::Form form>
FERRY_INLINE int reduce_scatter_block(const char* name, const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                      MPI_Request* request) {
  if (Usual u; usual_without_elements(form, recvcount, comm, datatype, op, &u)) [[likely]]
    return api::core_result(name, u.comm, coll::reduce_scatter_block(sendbuf, recvbuf, 0, u.type, u.op, u.comm));
  return reduce_scatter_block_checked<form>(name, sendbuf, recvbuf, recvcount, datatype, op, comm, info, request);
}

// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int reduce_scatter_checked(const char* name, const void* sendbuf, void* recvbuf,
                                                     coll::CountArray recvcounts, MPI_Datatype datatype, MPI_Op op,
                                                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  Checked c = check_common(call, comm, datatype, op, true);
  check_inter_not_in_place(call, c, sendbuf);
  MPI_Count total = check_recvcounts(call, c.comm, recvcounts);
  if (call.ok()) check_buffers(call, c.type, sendbuf, total, recvbuf, recvcounts[c.comm->rank]);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return coll::reduce_scatter(sendbuf, recvbuf, recvcounts, c.type, c.op, c.comm, how);
  });
}

template <api::Form form>
FERRY_INLINE int reduce_scatter(const char* name, const void* sendbuf, void* recvbuf, coll::CountArray recvcounts,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  // Every count 0 (so none negative), on a communicator of any size.
  if (Usual u; !recvcounts.null() && usual_without_elements(form, 0, comm, datatype, op, &u) &&
               coll::all_empty(recvcounts, u.comm->size)) [[likely]]
    return api::core_result(name, u.comm, coll::reduce_scatter(sendbuf, recvbuf, recvcounts, u.type, u.op, u.comm));
  return reduce_scatter_checked<form>(name, sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request);
}

// MPI_Scan and MPI_Exscan (§5.11): intracommunicators only.
// Every check, named where it fails (not the usual call).
template <api::Form form>
__attribute__((noinline)) int scan_checked(const char* name, bool exclusive, const void* sendbuf, void* recvbuf,
                                           MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                           MPI_Info info, MPI_Request* request) {
  api::Call call(name);
  call.count(count);
  Checked c = check_common(call, comm, datatype, op);
  check_buffers(call, c.type, sendbuf, count, recvbuf, count);
  return api::launch(call, form, info, request, [&](coll::Launch how) {
    return exclusive ? coll::exscan(sendbuf, recvbuf, count, c.type, c.op, c.comm, how)
                     : coll::scan(sendbuf, recvbuf, count, c.type, c.op, c.comm, how);
  });
}

template <api::Form form>
FERRY_INLINE int scan(const char* name, bool exclusive, const void* sendbuf, void* recvbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (Usual u; usual_without_elements(form, count, comm, datatype, op, &u)) [[likely]]
    return api::core_result(name, u.comm,
                            exclusive ? coll::exscan(sendbuf, recvbuf, 0, u.type, u.op, u.comm)
                                      : coll::scan(sendbuf, recvbuf, 0, u.type, u.op, u.comm));
  return scan_checked<form>(name, exclusive, sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

template <api::Form form>
FERRY_INLINE int scan(const char* name, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scan<form>(name, false, sendbuf, recvbuf, count, datatype, op, comm, info, request);
}
template <api::Form form>
FERRY_INLINE int exscan(const char* name, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scan<form>(name, true, sendbuf, recvbuf, count, datatype, op, comm, info, request);
}

}  // namespace

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  return allreduce<api::Form::kBlocking>("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                                         nullptr);
}
FERRY_ENTRY(Allreduce)
extern "C" int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request) {
  return allreduce<api::Form::kNonblocking>("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm,
                                            MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iallreduce)
extern "C" int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allreduce<api::Form::kPersistent>("MPI_Allreduce_init", sendbuf, recvbuf, count, datatype, op, comm, info,
                                           request);
}
FERRY_ENTRY(Allreduce_init)
extern "C" int PMPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm) {
  return allreduce<api::Form::kBlocking>("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                                         nullptr);
}
FERRY_ENTRY(Allreduce_c)
extern "C" int PMPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                 MPI_Comm comm, MPI_Request* request) {
  return allreduce<api::Form::kNonblocking>("MPI_Iallreduce_c", sendbuf, recvbuf, count, datatype, op, comm,
                                            MPI_INFO_NULL, request);
}
FERRY_ENTRY(Iallreduce_c)
extern "C" int PMPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return allreduce<api::Form::kPersistent>("MPI_Allreduce_init_c", sendbuf, recvbuf, count, datatype, op, comm, info,
                                           request);
}
FERRY_ENTRY(Allreduce_init_c)

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm) {
  return reduce<api::Form::kBlocking>("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, MPI_INFO_NULL,
                                      nullptr);
}
FERRY_ENTRY(Reduce)
extern "C" int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm, MPI_Request* request) {
  return reduce<api::Form::kNonblocking>("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                                         MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ireduce)
extern "C" int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce<api::Form::kPersistent>("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root, comm, info,
                                        request);
}
FERRY_ENTRY(Reduce_init)
extern "C" int PMPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                             int root, MPI_Comm comm) {
  return reduce<api::Form::kBlocking>("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, MPI_INFO_NULL,
                                      nullptr);
}
FERRY_ENTRY(Reduce_c)
extern "C" int PMPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPI_Comm comm, MPI_Request* request) {
  return reduce<api::Form::kNonblocking>("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, comm,
                                         MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ireduce_c)
extern "C" int PMPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce<api::Form::kPersistent>("MPI_Reduce_init_c", sendbuf, recvbuf, count, datatype, op, root, comm, info,
                                        request);
}
FERRY_ENTRY(Reduce_init_c)

extern "C" int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_block<api::Form::kBlocking>("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount, datatype,
                                                    op, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Reduce_scatter_block)
extern "C" int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_block<api::Form::kNonblocking>("MPI_Ireduce_scatter_block", sendbuf, recvbuf, recvcount,
                                                       datatype, op, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ireduce_scatter_block)
extern "C" int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return reduce_scatter_block<api::Form::kPersistent>("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, recvcount,
                                                      datatype, op, comm, info, request);
}
FERRY_ENTRY(Reduce_scatter_block_init)
extern "C" int PMPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_block<api::Form::kBlocking>("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, recvcount, datatype,
                                                    op, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Reduce_scatter_block_c)
extern "C" int PMPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_block<api::Form::kNonblocking>("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, recvcount,
                                                       datatype, op, comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ireduce_scatter_block_c)
extern "C" int PMPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                MPI_Request* request) {
  return reduce_scatter_block<api::Form::kPersistent>("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf, recvcount,
                                                      datatype, op, comm, info, request);
}
FERRY_ENTRY(Reduce_scatter_block_init_c)

extern "C" int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm) {
  return reduce_scatter<api::Form::kBlocking>("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                              MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Reduce_scatter)
extern "C" int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter<api::Form::kNonblocking>("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op,
                                                 comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ireduce_scatter)
extern "C" int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                        MPI_Request* request) {
  return reduce_scatter<api::Form::kPersistent>("MPI_Reduce_scatter_init", sendbuf, recvbuf, recvcounts, datatype, op,
                                                comm, info, request);
}
FERRY_ENTRY(Reduce_scatter_init)
extern "C" int PMPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return reduce_scatter<api::Form::kBlocking>("MPI_Reduce_scatter_c", sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                              MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Reduce_scatter_c)
extern "C" int PMPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter<api::Form::kNonblocking>("MPI_Ireduce_scatter_c", sendbuf, recvbuf, recvcounts, datatype, op,
                                                 comm, MPI_INFO_NULL, request);
}
FERRY_ENTRY(Ireduce_scatter_c)
extern "C" int PMPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                          MPI_Request* request) {
  return reduce_scatter<api::Form::kPersistent>("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, recvcounts, datatype, op,
                                                comm, info, request);
}
FERRY_ENTRY(Reduce_scatter_init_c)

extern "C" int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  return scan<api::Form::kBlocking>("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Scan)
extern "C" int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request* request) {
  return scan<api::Form::kNonblocking>("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                                       request);
}
FERRY_ENTRY(Iscan)
extern "C" int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scan<api::Form::kPersistent>("MPI_Scan_init", sendbuf, recvbuf, count, datatype, op, comm, info, request);
}
FERRY_ENTRY(Scan_init)
extern "C" int PMPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm) {
  return scan<api::Form::kBlocking>("MPI_Scan_c", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL, nullptr);
}
FERRY_ENTRY(Scan_c)
extern "C" int PMPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request* request) {
  return scan<api::Form::kNonblocking>("MPI_Iscan_c", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                                       request);
}
FERRY_ENTRY(Iscan_c)
extern "C" int PMPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return scan<api::Form::kPersistent>("MPI_Scan_init_c", sendbuf, recvbuf, count, datatype, op, comm, info, request);
}
FERRY_ENTRY(Scan_init_c)

extern "C" int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm) {
  return exscan<api::Form::kBlocking>("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                                      nullptr);
}
FERRY_ENTRY(Exscan)
extern "C" int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request* request) {
  return exscan<api::Form::kNonblocking>("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                                         request);
}
FERRY_ENTRY(Iexscan)
extern "C" int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return exscan<api::Form::kPersistent>("MPI_Exscan_init", sendbuf, recvbuf, count, datatype, op, comm, info, request);
}
FERRY_ENTRY(Exscan_init)
extern "C" int PMPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  return exscan<api::Form::kBlocking>("MPI_Exscan_c", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                                      nullptr);
}
FERRY_ENTRY(Exscan_c)
extern "C" int PMPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  return exscan<api::Form::kNonblocking>("MPI_Iexscan_c", sendbuf, recvbuf, count, datatype, op, comm, MPI_INFO_NULL,
                                         request);
}
FERRY_ENTRY(Iexscan_c)
extern "C" int PMPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return exscan<api::Form::kPersistent>("MPI_Exscan_init_c", sendbuf, recvbuf, count, datatype, op, comm, info,
                                        request);
}
FERRY_ENTRY(Exscan_init_c)
