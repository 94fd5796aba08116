// One-sided communication calls (MPI-4.0 §12.3): put, get, the
// accumulates, fetch-and-op, compare-and-swap, their request forms and
// their large-count (_c) forms. Each checks its arguments and describes
// the operation for rma::start (rma/operation.h). The common one-host
// cases are done first by rma/direct.h, which falls back here (and so to
// these checks and their errors) for anything else.
#include "api/api.h"
#include "base/op.h"
#include "rma/direct.h"
#include "rma/operation.h"

using namespace ferry;

namespace {

struct Side {
  const void* buffer;
  MPI_Count count;
  MPI_Datatype type;
};

bool checked_target(api::Call& call, const rma::Window& w, int rank, MPI_Aint disp) {
  if (!call.ok()) return false;
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w.comm->size))
    return call.fail(MPI_ERR_RANK, "invalid target_rank %d (window group size %d)", rank, w.comm->size);
  if (disp < 0 && w.flavor != rma::Flavor::kDynamic)
    return call.fail(MPI_ERR_DISP, "invalid target_disp %ld (must be >= 0)", static_cast<long>(disp));
  return true;
}

const Datatype* checked_side(api::Call& call, Side s, const char* count_name, const char* type_name,
                             const char* buffer_name) {
  if (!call.ok() || !call.count(s.count, count_name)) return nullptr;
  const Datatype* t = s.count == 0 && s.type == MPI_DATATYPE_NULL ? find_datatype(MPI_BYTE)
                                                                  : call.datatype(s.type, type_name);
  if (t == nullptr || !call.movable(t, type_name)) return nullptr;
  // The target side has no buffer here: its address is the window's.
  if (buffer_name != nullptr && !call.buffer(s.buffer, s.count, t, buffer_name)) return nullptr;
  return t;
}

int run(api::Call& call, rma::Window* w, rma::Operation& o, MPI_Request* request) {
  if (!call.ok()) return call.raise();
  Request* r = nullptr;
  Err e = rma::start(*w, o, request != nullptr ? &r : nullptr, call.name());
  if (request != nullptr) *request = r != nullptr ? r->handle : MPI_REQUEST_NULL;
  return call.result(std::move(e));
}

int put_or_get(const char* name, bool put, Side origin, int target, MPI_Aint disp, Side target_side, MPI_Win win,
               MPI_Request* request) {
  api::Call call(name);
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  if (request != nullptr && !call.not_null(request, "request")) return call.raise();
  rma::Operation o{put ? rma::OpKind::kPut : rma::OpKind::kGet};
  o.origin_type = checked_side(call, origin, "origin_count", "origin_datatype", "origin_addr");
  o.target_type = checked_side(call, {nullptr, target_side.count, target_side.type}, "target_count",
                               "target_datatype", nullptr);
  checked_target(call, *w, target, disp);
  o.origin = origin.buffer;
  o.origin_count = origin.count;
  o.target = target;
  o.disp = disp;
  o.target_count = target_side.count;
  return run(call, w, o, request);
}

const Op* checked_op(api::Call& call, MPI_Op handle) {
  if (!call.ok()) return nullptr;
  const Op* op = find_op(handle);
  if (op == nullptr) {
    call.fail(MPI_ERR_OP, handle == MPI_OP_NULL ? "op is MPI_OP_NULL" : "invalid op handle 0x%x",
              static_cast<unsigned>(handle));
    return nullptr;
  }
  if (op->user()) {
    call.fail(MPI_ERR_OP, "user-defined operations cannot be used in accumulate operations (MPI-4.0 §12.3.4)");
    return nullptr;
  }
  return op;
}

int accumulate(const char* name, Side origin, Side result, int target, MPI_Aint disp, Side target_side, MPI_Op op,
               MPI_Win win, MPI_Request* request, bool fetch) {
  api::Call call(name);
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  if (request != nullptr && !call.not_null(request, "request")) return call.raise();
  rma::Operation o{fetch ? rma::OpKind::kGetAccumulate : rma::OpKind::kAccumulate};
  o.op = checked_op(call, op);
  bool no_op = op == MPI_NO_OP;
  // With MPI_NO_OP the origin buffer is ignored (§12.3.4).
  if (!(fetch && no_op)) o.origin_type = checked_side(call, origin, "origin_count", "origin_datatype", "origin_addr");
  if (fetch) o.result_type = checked_side(call, result, "result_count", "result_datatype", "result_addr");
  o.target_type = checked_side(call, {nullptr, target_side.count, target_side.type}, "target_count",
                               "target_datatype", nullptr);
  checked_target(call, *w, target, disp);
  o.origin = origin.buffer;
  o.origin_count = fetch && no_op ? 0 : origin.count;
  o.result = const_cast<void*>(result.buffer);
  o.result_count = result.count;
  o.target = target;
  o.disp = disp;
  o.target_count = target_side.count;
  return run(call, w, o, request);
}

}  // namespace

#define FERRY_PUT_GET(Name, COUNT, put, fast, req_param, req_arg)                                                       \
  extern "C" int PMPI_##Name(std::conditional_t<put, const void*, void*> origin_addr, COUNT origin_count,          \
                             MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,                 \
                             COUNT target_count, MPI_Datatype target_datatype, MPI_Win win req_param) {           \
    if (fast && rma::direct::copy(put, const_cast<void*>(static_cast<const void*>(origin_addr)), origin_count,  \
                                    origin_datatype, target_rank, target_disp, target_count, target_datatype,    \
                                    win))                                                                         \
      return MPI_SUCCESS;                                                                                         \
    return put_or_get("MPI_" #Name, put, {origin_addr, origin_count, origin_datatype}, target_rank, target_disp, \
                      {nullptr, target_count, target_datatype}, win, req_arg);                                    \
  }                                                                                                              \
  FERRY_ENTRY(Name)

#define FERRY_COMMA ,
FERRY_PUT_GET(Put, int, true, true, , nullptr)
FERRY_PUT_GET(Put_c, MPI_Count, true, true, , nullptr)
FERRY_PUT_GET(Get, int, false, true, , nullptr)
FERRY_PUT_GET(Get_c, MPI_Count, false, true, , nullptr)
FERRY_PUT_GET(Rput, int, true, false, FERRY_COMMA MPI_Request* request, request)
FERRY_PUT_GET(Rput_c, MPI_Count, true, false, FERRY_COMMA MPI_Request* request, request)
FERRY_PUT_GET(Rget, int, false, false, FERRY_COMMA MPI_Request* request, request)
FERRY_PUT_GET(Rget_c, MPI_Count, false, false, FERRY_COMMA MPI_Request* request, request)

#define FERRY_ACCUMULATE(Name, COUNT, req_param, req_arg)                                                         \
  extern "C" int PMPI_##Name(const void* origin_addr, COUNT origin_count, MPI_Datatype origin_datatype,          \
                             int target_rank, MPI_Aint target_disp, COUNT target_count,                          \
                             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win req_param) {                    \
    return accumulate("MPI_" #Name, {origin_addr, origin_count, origin_datatype}, {nullptr, 0, MPI_BYTE},        \
                      target_rank, target_disp, {nullptr, target_count, target_datatype}, op, win, req_arg,     \
                      false);                                                                                    \
  }                                                                                                              \
  FERRY_ENTRY(Name)

FERRY_ACCUMULATE(Accumulate, int, , nullptr)
FERRY_ACCUMULATE(Accumulate_c, MPI_Count, , nullptr)
FERRY_ACCUMULATE(Raccumulate, int, FERRY_COMMA MPI_Request* request, request)
FERRY_ACCUMULATE(Raccumulate_c, MPI_Count, FERRY_COMMA MPI_Request* request, request)

#define FERRY_GET_ACCUMULATE(Name, COUNT, req_param, req_arg)                                                     \
  extern "C" int PMPI_##Name(const void* origin_addr, COUNT origin_count, MPI_Datatype origin_datatype,          \
                             void* result_addr, COUNT result_count, MPI_Datatype result_datatype,               \
                             int target_rank, MPI_Aint target_disp, COUNT target_count,                          \
                             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win req_param) {                    \
    return accumulate("MPI_" #Name, {origin_addr, origin_count, origin_datatype},                                \
                      {result_addr, result_count, result_datatype}, target_rank, target_disp,                   \
                      {nullptr, target_count, target_datatype}, op, win, req_arg, true);                        \
  }                                                                                                              \
  FERRY_ENTRY(Name)

FERRY_GET_ACCUMULATE(Get_accumulate, int, , nullptr)
FERRY_GET_ACCUMULATE(Get_accumulate_c, MPI_Count, , nullptr)
FERRY_GET_ACCUMULATE(Rget_accumulate, int, FERRY_COMMA MPI_Request* request, request)
FERRY_GET_ACCUMULATE(Rget_accumulate_c, MPI_Count, FERRY_COMMA MPI_Request* request, request)

extern "C" int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                                 MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  if (rma::direct::fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win))
    return MPI_SUCCESS;
  return accumulate("MPI_Fetch_and_op", {origin_addr, 1, datatype}, {result_addr, 1, datatype}, target_rank,
                    target_disp, {nullptr, 1, datatype}, op, win, nullptr, true);
}
FERRY_ENTRY(Fetch_and_op)

extern "C" int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                                     MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  if (rma::direct::compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win))
    return MPI_SUCCESS;
  api::Call call("MPI_Compare_and_swap");
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  const Datatype* t = call.datatype(datatype);
  if (t != nullptr && !t->predefined())
    call.fail(MPI_ERR_TYPE, "datatype %s is not predefined (compare-and-swap takes one predefined element)",
              datatype_label(*t).c_str());
  call.not_null(origin_addr, "origin_addr");
  call.not_null(compare_addr, "compare_addr");
  call.not_null(result_addr, "result_addr");
  checked_target(call, *w, target_rank, target_disp);
  rma::Operation o{rma::OpKind::kCompareAndSwap};
  o.op = find_op(MPI_REPLACE);
  o.origin = origin_addr;
  o.origin_count = 1;
  o.origin_type = t;
  o.compare = compare_addr;
  o.result = result_addr;
  o.result_count = 1;
  o.result_type = t;
  o.target = target_rank;
  o.disp = target_disp;
  o.target_count = 1;
  o.target_type = t;
  return run(call, w, o, nullptr);
}
FERRY_ENTRY(Compare_and_swap)
