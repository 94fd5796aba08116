#include "rma/apply.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/reduce_kernels.h"

namespace ferry::rma {
namespace {

// new = in op old, one element at a time with compare-and-swap; the old
// value goes to `old_out` when it is not null.
template <typename W>
void atomic_update(W* target, const char* in, char* old_out, uint64_t n, reduce::Kernel kernel, bool replace) {
  for (uint64_t i = 0; i < n; ++i) {
    W* p = target + i;
    W incoming;
    std::memcpy(&incoming, in + i * sizeof(W), sizeof(W));
    W old;
    if (replace) {
      old = __atomic_exchange_n(p, incoming, __ATOMIC_ACQ_REL);
    } else {
      old = __atomic_load_n(p, __ATOMIC_RELAXED);
      W desired;
      do {
        desired = old;
        if (kernel != nullptr) kernel(&incoming, &desired, 1);
      } while (!__atomic_compare_exchange_n(p, &old, desired, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    }
    if (old_out != nullptr) std::memcpy(old_out + i * sizeof(W), &old, sizeof(W));
  }
}

template <typename W>
bool atomic_compare_swap(W* target, const char* in, const char* compare, char* old_out) {
  W desired, expected;
  std::memcpy(&desired, in, sizeof(W));
  std::memcpy(&expected, compare, sizeof(W));
  __atomic_compare_exchange_n(target, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  std::memcpy(old_out, &expected, sizeof(W));  // the value found, equal or not
  return true;
}

bool atomic_width(uint64_t size) { return size == 1 || size == 2 || size == 4 || size == 8; }

// Elements an accumulate updates one by one with CPU atomics; more go
// through the reduction kernel under the exclusive accumulate lock.
constexpr uint64_t kAtomicElements = 8;

// Element updates on memory reached by pointer, with CPU atomics.
void atomic_run(char* target, const TargetOp& op, const char* in, char* out, const char* compare, uint64_t bytes,
                reduce::Kernel kernel) {
  uint64_t n = bytes / op.basic_size;
  bool replace = op.op == MPI_REPLACE;
  bool no_op = op.op == MPI_NO_OP;
  if (op.kind == OpKind::kCompareAndSwap) {
    switch (op.basic_size) {
      case 1: atomic_compare_swap(reinterpret_cast<uint8_t*>(target), in, compare, out); break;
      case 2: atomic_compare_swap(reinterpret_cast<uint16_t*>(target), in, compare, out); break;
      case 4: atomic_compare_swap(reinterpret_cast<uint32_t*>(target), in, compare, out); break;
      default: atomic_compare_swap(reinterpret_cast<uint64_t*>(target), in, compare, out); break;
    }
    return;
  }
  if (no_op) {  // an atomic read
    for (uint64_t i = 0; i < n; ++i) {
      char* p = target + i * op.basic_size;
      switch (op.basic_size) {
        case 1: { uint8_t v = __atomic_load_n(reinterpret_cast<uint8_t*>(p), __ATOMIC_ACQUIRE); std::memcpy(out + i, &v, 1); break; }
        case 2: { uint16_t v = __atomic_load_n(reinterpret_cast<uint16_t*>(p), __ATOMIC_ACQUIRE); std::memcpy(out + 2 * i, &v, 2); break; }
        case 4: { uint32_t v = __atomic_load_n(reinterpret_cast<uint32_t*>(p), __ATOMIC_ACQUIRE); std::memcpy(out + 4 * i, &v, 4); break; }
        default: { uint64_t v = __atomic_load_n(reinterpret_cast<uint64_t*>(p), __ATOMIC_ACQUIRE); std::memcpy(out + 8 * i, &v, 8); break; }
      }
    }
    return;
  }
  switch (op.basic_size) {
    case 1: atomic_update(reinterpret_cast<uint8_t*>(target), in, out, n, kernel, replace); break;
    case 2: atomic_update(reinterpret_cast<uint16_t*>(target), in, out, n, kernel, replace); break;
    case 4: atomic_update(reinterpret_cast<uint32_t*>(target), in, out, n, kernel, replace); break;
    default: atomic_update(reinterpret_cast<uint64_t*>(target), in, out, n, kernel, replace); break;
  }
}

// The same under the accumulate lock, on a local copy of the run.
Err locked_run(const Access& a, uint64_t address, const TargetOp& op, const char* in, char* out, const char* compare,
               uint64_t bytes, reduce::Kernel kernel, std::vector<char>& scratch) {
  char* data;
  bool copy = a.mode != Access::Mode::kPointer;
  if (copy) {
    scratch.resize(bytes);
    data = scratch.data();
    if (Err e = a.read(address, data, bytes)) return e;
  } else {
    data = a.at(address);
  }
  if (out != nullptr) std::memcpy(out, data, bytes);
  bool changed = true;
  if (op.kind == OpKind::kCompareAndSwap) {
    changed = std::memcmp(data, compare, bytes) == 0;
    if (changed) std::memcpy(data, in, bytes);
  } else if (op.op == MPI_NO_OP) {
    changed = false;
  } else if (op.op == MPI_REPLACE) {
    std::memcpy(data, in, bytes);
  } else {
    kernel(in, data, bytes / op.basic_size);
  }
  if (copy && changed) return a.write(address, data, bytes);
  return {};
}

}  // namespace

Err apply(const Access& a, const TargetOp& op, std::span<const Run> runs, const char* in, char* out,
          const char* compare) {
  uint64_t at = 0;
  switch (op.kind) {
    case OpKind::kPut:
      for (const Run& r : runs) {
        if (Err e = a.write(r.address, in + at, r.bytes)) return e;
        at += r.bytes;
      }
      return {};
    case OpKind::kGet:
      for (const Run& r : runs) {
        if (Err e = a.read(r.address, out + at, r.bytes)) return e;
        at += r.bytes;
      }
      return {};
    default: break;
  }
  // Accumulates. MPI_NO_OP and MPI_REPLACE need no kernel.
  reduce::Kernel kernel = nullptr;
  if (op.op != MPI_NO_OP && op.op != MPI_REPLACE && op.kind != OpKind::kCompareAndSwap) {
    kernel = reduce::find_kernel(op.op, op.basic);
    if (kernel == nullptr) return fail(MPI_ERR_OP, "no kernel for this operation on this datatype");
  }
  char* result = op.kind == OpKind::kAccumulate ? nullptr : out;
  bool atomics = a.atomics && a.mode == Access::Mode::kPointer && atomic_width(op.basic_size);
  uint64_t total = 0;
  for (const Run& r : runs) total += r.bytes;
  // A few elements: CPU atomics, element by element, under the shared
  // accumulate lock of their stripes. Many: one pass of the reduction kernel
  // per piece under the piece's stripes held exclusive, far faster than a
  // compare-and-swap loop per element (MPICH's large_acc_flush_local sums
  // 37 GiB of MPI_CHAR: minutes one byte at a time). An exclusive
  // passive-target lock holder is alone on the target, so it takes the
  // kernel path too.
  if (atomics && !op.exclusive && total <= kAtomicElements * op.basic_size) {
    StripeMask stripes = 0;
    for (const Run& r : runs)
      if (r.bytes > 0) stripes |= stripes_of(r.address, r.bytes);
    if (a.slot != nullptr) lock_accumulate_shared(*a.slot, stripes);
    for (const Run& r : runs) {
      atomic_run(a.at(r.address), op, in + at, result != nullptr ? result + at : nullptr, compare, r.bytes, kernel);
      at += r.bytes;
    }
    if (a.slot != nullptr) unlock_accumulate_shared(*a.slot, stripes);
    return {};
  }
  // Pieces end at a stripe's border, or at the end of the element that
  // crosses it (then the piece holds both stripes): element-wise atomicity
  // needs each element under all its stripes, not the whole operation
  // under one lock. Pieces in the same stripes keep them.
  std::vector<char> scratch;
  StripeMask held = 0;
  Err failed;
  for (const Run& r : runs) {
    for (uint64_t done = 0; done < r.bytes && failed.ok();) {
      uint64_t address = r.address + done;
      uint64_t piece = r.bytes - done;
      if (a.slot != nullptr) {
        uint64_t to_border = kStripeBytes - (address & (kStripeBytes - 1));
        if (to_border < piece) piece = std::min(piece, (to_border + op.basic_size - 1) / op.basic_size * op.basic_size);
        StripeMask need = stripes_of(address, piece);
        if (need != held) {
          if (held != 0) unlock_accumulate(*a.slot, held);
          lock_accumulate(*a.slot, need);
          held = need;
        }
      }
      failed = locked_run(a, address, op, in + at + done, result != nullptr ? result + at + done : nullptr, compare,
                          piece, kernel, scratch);
      done += piece;
    }
    if (failed) break;
    at += r.bytes;
  }
  if (held != 0) unlock_accumulate(*a.slot, held);
  return failed;
}

}  // namespace ferry::rma
