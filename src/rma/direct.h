// The one-host fast path of the calls that dominate passive-target codes
// (MPI_Put, MPI_Get, MPI_Fetch_and_op, MPI_Compare_and_swap, MPI_Win_flush,
// MPI_Win_flush_all) in the case that covers most of them: a target whose window memory is
// mapped here (rma/window.h, Reach::kMapped), no service on the window, a
// contiguous datatype, an access epoch of fence, lock or lock_all. Then a
// put or get is a memcpy, a fetch-and-op or compare-and-swap one CPU
// atomic under its stripe of the target's accumulate lock (rma/control.h),
// and a flush a memory fence, done in the entry point itself.
//
// Each function answers true when it did the whole call. It never reports
// an error: it tests that every argument is one the general path accepts
// (a valid window and datatype, counts, a rank of the window, a range
// inside the target's memory, an epoch that includes the target) and
// otherwise answers false before touching anything; the caller then takes
// the general path (rma/operation.h), which checks the arguments again
// and raises the right error class with a message naming the call and the
// argument. So the fast path changes how fast a correct call is, never
// which calls are correct.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "base/datatype.h"
#include "base/reduce_kernels.h"
#include "device/device.h"
#include "mpi.h"
#include "rma/window.h"
#include "runtime/runtime.h"

namespace ferry::rma::direct {

// The pieces below are one call's few dozen instructions only when inlined
// into the entry point.
#define FERRY_DIRECT inline __attribute__((always_inline))

// A datatype by handle, as find_datatype, with the predefined ones kept in
// a table by their handle's low byte (unique among MPICH's builtin
// handles): the calls here look their type up with one load. Predefined
// types live as long as the process, so an entry is never stale; a derived
// type is looked up every time.
FERRY_DIRECT const Datatype* lookup(MPI_Datatype handle) {
  static std::atomic<const Datatype*> known[256];
  const Datatype* t = known[handle & 0xff].load(std::memory_order_relaxed);
  if (t != nullptr && t->handle == handle) return t;
  t = find_datatype(handle);
  if (t != nullptr && t->predefined()) known[handle & 0xff].store(t, std::memory_order_relaxed);
  return t;
}

// The target `target` of the window behind `win`, when an operation may go
// to it directly now; nullptr otherwise. PSCW epochs take the general
// path (their group is a list to search).
FERRY_DIRECT Window* window(MPI_Win win) {
  if (!runtime::active()) return nullptr;
  return windows::find(win);
}

FERRY_DIRECT const Target* reachable(const Window& w, int target) {
  if (static_cast<unsigned>(target) >= w.targets.size() || w.service != nullptr) return nullptr;
  const Epochs& e = w.epochs;
  if (!e.fence && !e.lock_all && e.locks[static_cast<size_t>(target)] == LockState::kNone) return nullptr;
  const Target& t = w.targets[static_cast<size_t>(target)];
  return t.reach == Reach::kMapped && t.mapped != nullptr ? &t : nullptr;
}

// A datatype whose `count` elements are `count * size` dense bytes.
FERRY_DIRECT const Datatype* dense_type(MPI_Datatype handle) {
  const Datatype* t = lookup(handle);
  if (t == nullptr || !t->contiguous || !t->committed || !t->supported || t->size == 0) return nullptr;
  return t;
}

// Where `bytes` bytes at `disp` of target `t` are here, if they are all
// inside its window (MPI_ERR_RMA_RANGE otherwise, from the general path).
FERRY_DIRECT char* located(const Window& w, const Target& t, MPI_Aint disp, uint64_t bytes) {
  if (disp < 0 || w.flavor == Flavor::kDynamic) return nullptr;
  uint64_t offset;
  if (__builtin_mul_overflow(static_cast<uint64_t>(disp), static_cast<uint64_t>(t.disp_unit), &offset))
    return nullptr;
  if (offset > t.size || bytes > t.size - offset) return nullptr;
  return t.mapped + offset;
}

// Put (to_target) or get of dense data, no request.
FERRY_DIRECT bool copy(bool to_target, void* origin, MPI_Count origin_count, MPI_Datatype origin_type, int target,
                 MPI_Aint disp, MPI_Count target_count, MPI_Datatype target_type, MPI_Win win) {
  Window* w = window(win);
  if (w == nullptr || origin == nullptr || origin_count <= 0 || target_count <= 0) return false;
  const Datatype* ot = dense_type(origin_type);
  const Datatype* tt = target_type == origin_type ? ot : dense_type(target_type);
  if (ot == nullptr || tt == nullptr) return false;
  uint64_t bytes, target_bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(origin_count), ot->size, &bytes) ||
      __builtin_mul_overflow(static_cast<uint64_t>(target_count), tt->size, &target_bytes) || bytes != target_bytes ||
      bytes > static_cast<uint64_t>(INT64_MAX))
    return false;
  const Target* t = reachable(*w, target);
  if (t == nullptr) return false;
  char* at = located(*w, *t, disp, bytes);
  // GPU buffers get the general path's clear error.
  if (at == nullptr || device::enabled()) return false;
  char* to = to_target ? at : static_cast<char*>(origin);
  const char* from = to_target ? static_cast<const char*>(origin) : at;
  // A word is a move, not a call into the C library.
  switch (bytes) {
    case 1: std::memcpy(to, from, 1); break;
    case 2: std::memcpy(to, from, 2); break;
    case 4: std::memcpy(to, from, 4); break;
    case 8: std::memcpy(to, from, 8); break;
    case 16: std::memcpy(to, from, 16); break;
    default: std::memcpy(to, from, bytes); break;
  }
  return true;
}

// MPI_Win_flush on a target reached directly: its operations completed in
// their calls; the fence orders them before whatever this process does
// next (a store that tells the target, a load of another window).
FERRY_DIRECT bool flush(int target, MPI_Win win) {
  Window* w = window(win);
  if (w == nullptr || reachable(*w, target) == nullptr) return false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return true;
}

// MPI_Win_flush_all (and _local_all) on a window without a service: every
// target is reached in memory (mapped, or by cross-memory attach), so each
// operation completed in its call, whatever the target; the fence orders
// them as flush's does. The epoch rule is flush_all's own (rma/epochs.h,
// api/win_sync.cc): a lock, lock_all or fence epoch must be open.
FERRY_DIRECT bool flush_all(MPI_Win win) {
  Window* w = window(win);
  if (w == nullptr || w->service != nullptr) return false;
  const Epochs& e = w->epochs;
  if (!e.fence && !e.lock_all && e.locks_held == 0) return false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return true;
}

// The element of an atomic call: one predefined element of 1, 2, 4 or 8
// bytes, naturally aligned, in memory every origin maps (CPU atomics seen
// by all: Target::in_segment), with its stripe's lock word.
struct Element {
  char* at;
  uint32_t size;
  Slot* slot;
  unsigned stripe;
};

FERRY_DIRECT bool element(MPI_Win win, MPI_Datatype type, int target, MPI_Aint disp, const Datatype** t,
                    Element* e) {
  Window* w = window(win);
  if (w == nullptr) return false;
  *t = lookup(type);
  if (*t == nullptr || !(*t)->predefined() || !(*t)->supported) return false;
  uint64_t size = (*t)->size;
  if (size != 1 && size != 2 && size != 4 && size != 8) return false;
  const Target* tg = reachable(*w, target);
  if (tg == nullptr || !tg->in_segment || tg->slot == nullptr) return false;
  char* at = located(*w, *tg, disp, size);
  if (at == nullptr || (reinterpret_cast<uintptr_t>(at) & (size - 1)) != 0) return false;
  *e = {at, static_cast<uint32_t>(size), tg->slot, stripe_of(tg->base + static_cast<uint64_t>(at - tg->mapped))};
  return true;
}

FERRY_DIRECT bool c_integer(MPI_Datatype t) {
  switch (t) {
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG_INT:
    case MPI_UNSIGNED_LONG_LONG: case MPI_SHORT: case MPI_UNSIGNED_SHORT: case MPI_SIGNED_CHAR:
    case MPI_UNSIGNED_CHAR: case MPI_INT8_T: case MPI_INT16_T: case MPI_INT32_T: case MPI_INT64_T:
    case MPI_UINT8_T: case MPI_UINT16_T: case MPI_UINT32_T: case MPI_UINT64_T:
      return true;
    default:
      return false;
  }
}

// One fetch-and-op on a W: new = origin op old, the old value to result.
template <typename W>
FERRY_DIRECT void fetch_and_op(W* p, const void* origin, void* result, MPI_Op op, reduce::Kernel kernel, bool integer) {
  W in, old;
  if (op != MPI_NO_OP) std::memcpy(&in, origin, sizeof(W));
  if (op == MPI_NO_OP) {
    old = __atomic_load_n(p, __ATOMIC_ACQUIRE);
  } else if (op == MPI_REPLACE) {
    old = __atomic_exchange_n(p, in, __ATOMIC_ACQ_REL);
  } else if (op == MPI_SUM && integer) {
    old = __atomic_fetch_add(p, in, __ATOMIC_ACQ_REL);
  } else {
    old = __atomic_load_n(p, __ATOMIC_RELAXED);
    W desired;
    do {
      desired = old;
      kernel(&in, &desired, 1);
    } while (!__atomic_compare_exchange_n(p, &old, desired, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
  }
  std::memcpy(result, &old, sizeof(W));
}

FERRY_DIRECT bool fetch_and_op(const void* origin, void* result, MPI_Datatype type, int target, MPI_Aint disp, MPI_Op op,
                         MPI_Win win) {
  const Datatype* t;
  Element e;
  if (result == nullptr || (origin == nullptr && op != MPI_NO_OP) || !element(win, type, target, disp, &t, &e))
    return false;
  // A sum of C integers is a wrapping fetch-and-add, the kernel's sum.
  // Other operations must be defined on the type (MPI_ERR_OP otherwise):
  // a compare-and-swap loop applies the kernel.
  reduce::Kernel kernel = nullptr;
  bool integer = op == MPI_SUM && c_integer(type);
  if (op != MPI_NO_OP && op != MPI_REPLACE && !integer) {
    kernel = reduce::find_kernel(op, type);
    if (kernel == nullptr) return false;
  }
  if (device::enabled()) return false;
  lock_stripe_shared(*e.slot, e.stripe);
  switch (e.size) {
    case 1: fetch_and_op(reinterpret_cast<uint8_t*>(e.at), origin, result, op, kernel, integer); break;
    case 2: fetch_and_op(reinterpret_cast<uint16_t*>(e.at), origin, result, op, kernel, integer); break;
    case 4: fetch_and_op(reinterpret_cast<uint32_t*>(e.at), origin, result, op, kernel, integer); break;
    default: fetch_and_op(reinterpret_cast<uint64_t*>(e.at), origin, result, op, kernel, integer); break;
  }
  unlock_stripe_shared(*e.slot, e.stripe);
  return true;
}

template <typename W>
FERRY_DIRECT void compare_and_swap(W* p, const void* origin, const void* compare, void* result) {
  W desired, expected;
  std::memcpy(&desired, origin, sizeof(W));
  std::memcpy(&expected, compare, sizeof(W));
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  std::memcpy(result, &expected, sizeof(W));  // the value found, equal or not
}

FERRY_DIRECT bool compare_and_swap(const void* origin, const void* compare, void* result, MPI_Datatype type, int target,
                             MPI_Aint disp, MPI_Win win) {
  const Datatype* t;
  Element e;
  if (origin == nullptr || compare == nullptr || result == nullptr || !element(win, type, target, disp, &t, &e) ||
      device::enabled())
    return false;
  lock_stripe_shared(*e.slot, e.stripe);
  switch (e.size) {
    case 1: compare_and_swap(reinterpret_cast<uint8_t*>(e.at), origin, compare, result); break;
    case 2: compare_and_swap(reinterpret_cast<uint16_t*>(e.at), origin, compare, result); break;
    case 4: compare_and_swap(reinterpret_cast<uint32_t*>(e.at), origin, compare, result); break;
    default: compare_and_swap(reinterpret_cast<uint64_t*>(e.at), origin, compare, result); break;
  }
  unlock_stripe_shared(*e.slot, e.stripe);
  return true;
}

#undef FERRY_DIRECT

}  // namespace ferry::rma::direct
