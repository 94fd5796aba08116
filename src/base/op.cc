// Reduction operations: the predefined ones (kernels in reduce_kernels.cc)
// and the users' (MPI_Op_create), behind one apply().
#include "base/op.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "base/handles.h"
#include "base/reduce_kernels.h"

namespace ferry {

static_assert(std::is_same_v<builtin_ops::Kernel, reduce::Kernel>);

// By handle index (MPI_MAX is 0x58000001). MPI_REPLACE and MPI_NO_OP are not
// commutative (a REPLACE b is a, b REPLACE a is b): a reduction that used them
// would have to keep the ranks' order.
const Op builtin_ops::predefined[kOps] = {
    {MPI_OP_NULL, "MPI_OP_NULL", false},
    {MPI_MAX, "MPI_MAX", true},
    {MPI_MIN, "MPI_MIN", true},
    {MPI_SUM, "MPI_SUM", true},
    {MPI_PROD, "MPI_PROD", true},
    {MPI_LAND, "MPI_LAND", true},
    {MPI_BAND, "MPI_BAND", true},
    {MPI_LOR, "MPI_LOR", true},
    {MPI_BOR, "MPI_BOR", true},
    {MPI_LXOR, "MPI_LXOR", true},
    {MPI_BXOR, "MPI_BXOR", true},
    {MPI_MINLOC, "MPI_MINLOC", true},
    {MPI_MAXLOC, "MPI_MAXLOC", true},
    {MPI_REPLACE, "MPI_REPLACE", false},
    {MPI_NO_OP, "MPI_NO_OP", false},
};

namespace {

// A user's operation: the handle's reference plus one per operation in flight.
struct UserOp : Op {
  std::atomic<int> references;
};

// User ops, created, freed and looked up from any thread (base/handles.h).
handle::Table<UserOp> user_ops;

// The predefined type whose kernel a reduction on `type` runs, and how many of
// them make one element of `type`.
struct Elements {
  MPI_Datatype basic;
  size_t per_element;
};

// Predefined types are their own elements. A derived type reduces as its
// basic type when one element is a contiguous run of that single type
// (MPI_Type_contiguous(4, MPI_INT), MPI_Type_dup(MPI_DOUBLE)); other layouts
// (strided, mixed, padded pairs) are not supported yet. Extending this
// function is all it takes to support more: apply() and check_op() ask it.
bool elements_of(const Datatype& type, Elements* e) {
  if (type.predefined()) {
    *e = Elements{type.handle, 1};
    return true;
  }
  if (!type.contiguous || type.signature == nullptr) return false;
  MPI_Datatype basic = type.signature->single_basic();
  const Datatype* b = find_datatype(basic);
  if (b == nullptr || !b->predefined() || !b->contiguous || b->size == 0 || type.size % b->size != 0) return false;
  *e = Elements{basic, type.size / b->size};
  return true;
}

}  // namespace

const Op* builtin_ops::find_other(MPI_Op h) {
  if (handle::object_of(h) != handle::Object::kOp) return nullptr;
  if (handle::kind_of(h) == handle::kKindBuiltin) return find_op(h);
  if (handle::kind_of(h) != handle::kKindDynamic) return nullptr;
  return user_ops.get(handle::index_of(h));
}

namespace {

// A predefined operation's kernel exists for `type`.
Err check_kernel(const Op& op, const Datatype& type) {
  Elements e;
  if (!elements_of(type, &e))
    return fail(MPI_ERR_TYPE, "%s on the derived datatype %s is not supported yet (only contiguous runs of one "
                "predefined type are)", op.name, datatype_label(type).c_str());
  if (reduce::find_kernel(op.handle, e.basic) == nullptr) {
    if (e.basic == type.handle)
      return fail(MPI_ERR_OP, "%s is not defined for %s", op.name, datatype_label(type).c_str());
    return fail(MPI_ERR_OP, "%s is not defined for %s (made of %s)", op.name, datatype_label(type).c_str(),
                find_datatype(e.basic)->name);
  }
  return {};
}

}  // namespace

Err builtin_ops::check(const Op& op, const Datatype& type) {
  if (op.user()) return {};  // a user's function takes any datatype
  if (op.handle == MPI_REPLACE || op.handle == MPI_NO_OP)
    return fail(MPI_ERR_OP, "%s is only for one-sided accumulate operations, not for reductions", op.name);
  Err e = check_kernel(op, type);
  if (e.ok() && type.predefined()) {
    const PairBit bit = pair_bit(op.handle, type.handle);
    if (bit.word != nullptr) bit.word->fetch_or(bit.mask, std::memory_order_relaxed);
  }
  return e;
}

Err check_accumulate_op(const Op& op, const Datatype& type) {
  if (op.user())
    return fail(MPI_ERR_OP, "user-defined operation 0x%x cannot be used in accumulate operations",
                static_cast<unsigned>(op.handle));
  return check_kernel(op, type);
}

void apply_slowly(const Op& op, const void* in, void* inout, MPI_Count count, const Datatype& type) {
  if (count <= 0) return;
  // MPI's prototypes take non-const pointers; the function must not write invec.
  MPI_Datatype handle = type.handle;
  if (op.user_fn_c != nullptr) {
    MPI_Count len = count;
    op.user_fn_c(const_cast<void*>(in), inout, &len, &handle);
    return;
  }
  if (op.user_fn != nullptr) {
    for (MPI_Count done = 0; done < count;) {
      int len = static_cast<int>(std::min<MPI_Count>(count - done, INT_MAX));
      MPI_Aint at = static_cast<MPI_Aint>(done) * type.extent;
      op.user_fn(const_cast<char*>(static_cast<const char*>(in)) + at, static_cast<char*>(inout) + at, &len, &handle);
      done += len;
    }
    return;
  }
  Elements e;
  reduce::Kernel kernel = elements_of(type, &e) ? reduce::find_kernel(op.handle, e.basic) : nullptr;
  if (kernel == nullptr) {
    // A caller skipped check_op: a bug in Ferry, never silently wrong data.
    std::fprintf(stderr, "ferry: internal error: apply(%s, %s) without a kernel\n", op.name,
                 datatype_label(type).c_str());
    std::abort();
  }
  // A predefined operation on a builtin datatype (its own element): the
  // inline apply() calls its kernel from now on (builtin_ops::kernels).
  if (handle::kind_of(op.handle) == handle::kKindBuiltin && handle::kind_of(type.handle) == handle::kKindBuiltin &&
      e.per_element == 1 && e.basic == type.handle) {
    const uint32_t o = handle::index_of(op.handle);
    if (o < builtin_ops::kOps)
      builtin_ops::kernels[o][static_cast<uint32_t>(type.handle) & 0xff].store(kernel, std::memory_order_relaxed);
  }
  kernel(in, inout, static_cast<size_t>(count) * e.per_element);
}

namespace ops {

MPI_Op create(MPI_User_function* fn, bool commutative) {
  auto* op = new UserOp{{MPI_OP_NULL, "user operation", commutative, fn}, 1};
  op->handle = handle::make_dynamic(handle::Object::kOp, user_ops.add(op));
  return op->handle;
}

MPI_Op create(MPI_User_function_c* fn, bool commutative) {
  auto* op = new UserOp{{MPI_OP_NULL, "user operation", commutative, nullptr, fn}, 1};
  op->handle = handle::make_dynamic(handle::Object::kOp, user_ops.add(op));
  return op->handle;
}

Err free(MPI_Op h) {
  if (h == MPI_OP_NULL) return fail(MPI_ERR_OP, "op is MPI_OP_NULL");
  if (const Op* p = find_op(h); p != nullptr && is_predefined(*p))
    return fail(MPI_ERR_OP, "%s is predefined and cannot be freed", p->name);
  UserOp* op = nullptr;
  if (handle::is_dynamic(h, handle::Object::kOp)) op = user_ops.remove(handle::index_of(h));
  if (op == nullptr) return fail(MPI_ERR_OP, "invalid op handle 0x%x", static_cast<unsigned>(h));
  release(*op);
  return {};
}

bool is_predefined(const Op& op) { return !op.user(); }

void retain(const Op& op) {
  if (is_predefined(op)) return;
  static_cast<UserOp&>(const_cast<Op&>(op)).references.fetch_add(1, std::memory_order_relaxed);
}

void release(const Op& op) {
  if (is_predefined(op)) return;
  auto& user = static_cast<UserOp&>(const_cast<Op&>(op));
  if (user.references.fetch_sub(1, std::memory_order_acq_rel) == 1) delete &user;
}

}  // namespace ops

}  // namespace ferry
