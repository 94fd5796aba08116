// Reduction operations (MPI-3.1 §5.9.5-5.9.7): user-defined operations and
// the local reduction, each also in its large-count form (MPI-4.0's
// MPI_Op_create_c, whose function takes an MPI_Count length, and
// MPI_Reduce_local_c). The operations themselves live in base/op.
#include "api/api.h"
#include "base/op.h"
#include "coll/collectives.h"

using namespace ferry;

namespace {

// The operation behind `handle`, or nullptr after recording MPI_ERR_OP.
const Op* checked_op(api::Call& call, MPI_Op handle) {
  if (!call.ok()) return nullptr;
  const Op* op = find_op(handle);
  if (op == nullptr) {
    if (handle == MPI_OP_NULL) call.fail(MPI_ERR_OP, "op is MPI_OP_NULL");
    else call.fail(MPI_ERR_OP, "invalid op handle 0x%x", static_cast<unsigned>(handle));
  }
  return op;
}

template <typename Function>
int create(const char* name, Function* user_fn, int commute, MPI_Op* op) {
  api::Call call(name);
  if (!call.initialized() || !call.not_null(reinterpret_cast<void*>(user_fn), "user_fn") ||
      !call.not_null(op, "op"))
    return call.raise();
  *op = ops::create(user_fn, commute != 0);
  return MPI_SUCCESS;
}

int reduce_local(const char* name, const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op) {
  api::Call call(name);
  if (!call.initialized() || !call.count(count)) return call.raise();
  const Datatype* type = call.datatype(datatype);
  if (type != nullptr) call.movable(type);  // committed, as for any use in a call
  const Op* o = checked_op(call, op);
  if (!call.ok()) return call.raise();
  // MPI-3.1 §5.9.7: both buffers are the caller's own; MPI_IN_PLACE has no meaning here.
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) {
    call.fail(MPI_ERR_BUFFER, "%s is MPI_IN_PLACE", inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf");
    return call.raise();
  }
  if (!call.buffer(inbuf, count, type, "inbuf") || !call.buffer(inoutbuf, count, type, "inoutbuf")) return call.raise();
  if (Err e = check_op(*o, *type)) return call.result(std::move(e));
  return call.result(coll::reduce_local(inbuf, inoutbuf, count, type, o));
}

}  // namespace

extern "C" int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return create("MPI_Op_create", user_fn, commute, op);
}
FERRY_ENTRY(Op_create)

extern "C" int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return create("MPI_Op_create_c", user_fn, commute, op);
}
FERRY_ENTRY(Op_create_c)

extern "C" int PMPI_Op_free(MPI_Op* op) {
  api::Call call("MPI_Op_free");
  if (!call.initialized() || !call.not_null(op, "op")) return call.raise();
  if (Err e = ops::free(*op)) return call.result(std::move(e));
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Op_free)

extern "C" int PMPI_Op_commutative(MPI_Op op, int* commute) {
  api::Call call("MPI_Op_commutative");
  if (!call.initialized() || !call.not_null(commute, "commute")) return call.raise();
  const Op* o = checked_op(call, op);
  if (o == nullptr) return call.raise();
  *commute = o->commutative ? 1 : 0;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Op_commutative)

extern "C" int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}
FERRY_ENTRY(Reduce_local)

extern "C" int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                                   MPI_Op op) {
  return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
FERRY_ENTRY(Reduce_local_c)
