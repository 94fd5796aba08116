#include "rma/operation.h"

#include <cstring>
#include <vector>

#include "base/type_pack.h"
#include "base/type_signature.h"
#include "device/device.h"
#include "rma/active_message.h"
#include "rma/epochs.h"
#include "rma/rdma.h"

namespace ferry::rma {
namespace {

// The runs of target memory that `count` elements of `t` at target address
// `address` cover, in type-map order.
struct Collect final : type::RunVisitor {
  std::vector<Run>* runs;
  void run(uint64_t address, uint64_t bytes) override { runs->push_back({address, bytes}); }
};

void target_runs(uint64_t address, MPI_Count count, const Datatype& t, std::vector<Run>* runs) {
  uint64_t bytes = t.bytes(count);
  if (bytes == 0) return;
  Collect c;
  c.runs = runs;
  type::for_each_run(t, address, static_cast<uint64_t>(count), 0, bytes, c);
}

// The element type of an accumulate's datatype: a predefined type, or
// the one basic type a derived type is made of (§12.3.4).
MPI_Datatype basic_of(const Datatype& t) {
  if (t.predefined()) return t.handle;
  // The types it was built from: a pair type (MPI_DOUBLE_INT) stays one
  // element here, where the signature sees its two members.
  MPI_Datatype found = MPI_DATATYPE_NULL;
  for (const Datatype* part : t.derived->types) {
    MPI_Datatype b = basic_of(*part);
    if (b == MPI_DATATYPE_NULL || (found != MPI_DATATYPE_NULL && b != found)) {
      found = MPI_DATATYPE_NULL;
      break;
    }
    found = b;
  }
  if (found != MPI_DATATYPE_NULL) return found;
  return t.signature != nullptr ? t.signature->single_basic() : MPI_DATATYPE_NULL;
}

Err check_range(const Window& w, const Target& tg, int target, uint64_t address, MPI_Count count,
                const Datatype& t, const char* what) {
  if (count == 0 || t.size == 0) return {};
  int64_t first = static_cast<int64_t>(address) + t.true_lb;
  int64_t last = static_cast<int64_t>(address) + (count - 1) * t.extent + t.true_lb + t.true_extent;
  if (w.flavor == Flavor::kDynamic) {
    if (target != w.rank()) return {};  // the target's service, or the kernel's copy, checks
    if (attached(w.regions, static_cast<uint64_t>(first), static_cast<uint64_t>(last - first))) return {};
    return fail(MPI_ERR_RMA_RANGE, "the %s range [0x%llx, 0x%llx) is not in memory attached to the dynamic window",
                what, static_cast<unsigned long long>(first), static_cast<unsigned long long>(last));
  }
  if (first < static_cast<int64_t>(tg.base) || last > static_cast<int64_t>(tg.base + tg.size))
    return fail(MPI_ERR_RMA_RANGE, "the %s range (bytes %lld to %lld of the target's window) is outside its %llu "
                "bytes", what, static_cast<long long>(first - static_cast<int64_t>(tg.base)),
                static_cast<long long>(last - static_cast<int64_t>(tg.base)),
                static_cast<unsigned long long>(tg.size));
  return {};
}

// A request that is complete already: the operation finished in the call.
Request* completed_request(Window& w) {
  progress::Lock lock;
  Request* r = requests::acquire();
  r->comm = w.comm;  // a live request belongs to a communicator
  r->kind = Request::Kind::kSend;
  r->active = true;
  r->complete = true;
  r->status = MPI_Status{};
  return r;
}

}  // namespace

Access access_of(const Window& w, int target) {
  const Target& tg = w.targets[static_cast<size_t>(target)];
  Access a;
  if (tg.reach == Reach::kCma) {
    a.mode = Access::Mode::kCma;
    a.pid = tg.pid;
  } else {
    a.mapped = tg.mapped;
    a.base = tg.base;
  }
  a.atomics = tg.in_segment;
  a.slot = tg.slot;
  return a;
}

Err start(Window& w, const Operation& o, Request** request, const char* call) {
  if (request != nullptr) *request = nullptr;
  if (o.target == MPI_PROC_NULL) {
    if (request != nullptr) *request = completed_request(w);
    return {};
  }
  if (Err e = check_access(w, o.target, call)) return e;
  // GPU memory is neither staged nor reached by one-sided calls yet: a
  // clear error instead of a fault (README, "One-sided communication").
  if (device::enabled())
    for (const void* p : {o.origin, static_cast<const void*>(o.result), o.compare})
      if (p != nullptr && device::memory_of(p) == device::Memory::kDevice)
        return fail(MPI_ERR_BUFFER, "a buffer at %p is GPU memory, which one-sided communication does not "
                    "support (host or managed memory only)", p);
  const Target& tg = w.targets[static_cast<size_t>(o.target)];
  uint64_t address = w.flavor == Flavor::kDynamic ? static_cast<uint64_t>(o.disp)
                                                  : tg.base + static_cast<uint64_t>(o.disp) * tg.disp_unit;
  const Datatype& tt = *o.target_type;
  if (Err e = check_range(w, tg, o.target, address, o.target_count, tt, "target")) return e;

  TargetOp op{o.kind};
  uint64_t target_bytes = tt.bytes(o.target_count);
  // Nothing to move (a zero count, or a type without data): done.
  if (target_bytes == 0 && o.kind != OpKind::kCompareAndSwap) {
    if (request != nullptr) *request = completed_request(w);
    return {};
  }
  if (o.kind != OpKind::kPut && o.kind != OpKind::kGet) {
    op.op = o.op->handle;
    op.basic = basic_of(tt);
    const Datatype* b = find_datatype(op.basic);
    if (b == nullptr)
      return fail(MPI_ERR_TYPE, "target datatype %s is not made of one predefined type, as accumulates need",
                  datatype_label(tt).c_str());
    op.basic_size = b->size;
    if (Err e = check_accumulate_op(*o.op, *b)) return e;
    if (o.origin_type != nullptr && o.origin_count > 0 && op.op != MPI_NO_OP && basic_of(*o.origin_type) != op.basic)
      return fail(MPI_ERR_TYPE, "origin datatype %s and target datatype %s are not made of the same predefined "
                  "type", datatype_label(*o.origin_type).c_str(), datatype_label(tt).c_str());
    op.exclusive = w.epochs.locks.empty() ? false
                                          : w.epochs.locks[static_cast<size_t>(o.target)] == LockState::kExclusive;
  }
  bool sends = o.kind != OpKind::kGet && !(o.kind != OpKind::kPut && op.op == MPI_NO_OP);
  if (sends && o.origin_type != nullptr && o.origin_type->bytes(o.origin_count) != target_bytes)
    return fail(MPI_ERR_TYPE, "the origin's %zu bytes do not match the target's %llu bytes",
                o.origin_type->bytes(o.origin_count), static_cast<unsigned long long>(target_bytes));
  bool receives = o.kind != OpKind::kPut && o.kind != OpKind::kAccumulate;
  const Datatype* rt = o.kind == OpKind::kGet ? o.origin_type : o.result_type;
  MPI_Count rcount = o.kind == OpKind::kGet ? o.origin_count : o.result_count;
  if (receives && rt->bytes(rcount) != target_bytes)
    return fail(MPI_ERR_TYPE, "the result buffer's %zu bytes do not match the target's %llu bytes",
                rt->bytes(rcount), static_cast<unsigned long long>(target_bytes));
  void* result_buffer = o.kind == OpKind::kGet ? const_cast<void*>(o.origin) : o.result;

  // The input in packed form: the origin's own bytes when they are dense.
  const char* in = nullptr;
  std::vector<char> packed;
  if (sends && target_bytes > 0) {
    in = type::dense_run(*o.origin_type, o.origin, static_cast<uint64_t>(o.origin_count));
    if (in == nullptr) {
      packed.resize(target_bytes);
      type::pack(*o.origin_type, o.origin, static_cast<uint64_t>(o.origin_count), 0, target_bytes, packed.data());
      in = packed.data();
    }
  }

  // Runs of target memory: one, without allocating, for a dense target.
  Run one{address, target_bytes};
  std::vector<Run> runs;
  std::span<const Run> run_list;
  if (target_bytes > 0) {
    if (const char* dense = type::dense_run(tt, reinterpret_cast<void*>(address), static_cast<uint64_t>(o.target_count))) {
      one.address = reinterpret_cast<uint64_t>(dense);
      run_list = {&one, 1};
    } else {
      target_runs(address, o.target_count, tt, &runs);
      run_list = runs;
    }
  }

  if (tg.reach == Reach::kMessages) {
    // Through the NIC when the target's memory is registered with it and
    // the operation is one it does (rma/rdma.h); the flush waits for it.
    Err through_nic;
    if (rdma::try_start(w, o, address, request != nullptr, &through_nic)) return through_nic;
    std::vector<Run> list(run_list.begin(), run_list.end());
    Request* r = nullptr;
    if (request != nullptr) {
      progress::Lock lock;
      r = requests::acquire();
      r->kind = Request::Kind::kSend;
      r->comm = w.comm;
      r->active = true;
    }
    Err e = w.service->send(o.target, op, list, in, sends ? target_bytes : 0, static_cast<const char*>(o.compare),
                            receives ? result_buffer : nullptr, rcount, rt, receives ? target_bytes : 0, r,
                            w.epochs.fence, std::move(packed));
    if (request != nullptr) *request = r;
    return e;
  }

  // Reached directly: done by the time this returns. Where other ranks
  // send this process requests, each call also moves them on: a program
  // that spins on its own memory (a compare-and-swap lock) must not starve
  // the origins whose requests it serves (MPI-4.0 §12.7.3, progress).
  if (w.service != nullptr) w.service->poke();
  Access a = access_of(w, o.target);
  Err e;
  if (!receives) {
    e = apply(a, op, run_list, in, nullptr);
  } else {
    char* out = target_bytes == 0 ? nullptr
                                  : const_cast<char*>(type::dense_run(*rt, result_buffer, static_cast<uint64_t>(rcount)));
    std::vector<char> old;
    if (out == nullptr && target_bytes > 0) {
      old.resize(target_bytes);
      out = old.data();
    }
    e = apply(a, op, run_list, in, out, static_cast<const char*>(o.compare));
    if (e.ok() && !old.empty()) type::unpack(*rt, result_buffer, static_cast<uint64_t>(rcount), 0, target_bytes, out);
  }
  if (request != nullptr && e.ok()) *request = completed_request(w);
  return e;
}

}  // namespace ferry::rma
