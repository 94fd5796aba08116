#include "device/profiled_ops.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>

namespace ferry::device {
namespace {

const Ops* inner = nullptr;
Ops table;

struct Timing {
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> nanoseconds{0};
};

// One slot per member of Ops, in declaration order (names for the report).
constexpr const char* kNames[] = {
    "pointer_info",   "buffer_id",        "stream_create", "copy_async",    "copy_2d_async",
    "stream_synchronize", "pinned_alloc", "pinned_free",   "ipc_get_handle", "ipc_open_handle",
    "ipc_close_handle", "error_string",   "module_load",   "module_function", "launch",
    "device_alloc",   "device_free",      "synchronize_legacy", "event_create", "event_record",
    "event_query",    "event_destroy"};
constexpr int kSlots = sizeof kNames / sizeof kNames[0];
// Every call of Ops has its slot and name: a member added to Ops must be
// added here too (and wrapped below).
static_assert(sizeof(Ops) == sizeof(const char*) + kSlots * sizeof(void (*)()));
Timing timings[kSlots];

uint64_t now() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Timed<slot, &Ops::member>::call has the member's own signature and
// forwards to the inner table's member.
template <int Slot, auto Member>
struct Timed;
template <int Slot, typename R, typename... Args, R (*Ops::*Member)(Args...)>
struct Timed<Slot, Member> {
  static R call(Args... args) {
    uint64_t start = now();
    R result = (inner->*Member)(args...);
    timings[Slot].nanoseconds.fetch_add(now() - start, std::memory_order_relaxed);
    timings[Slot].calls.fetch_add(1, std::memory_order_relaxed);
    return result;
  }
};

// Only the calls the inner table has (a driver without kernel calls has
// none of the three).
template <int Slot, auto Member>
void wrap() {
  if (inner->*Member != nullptr) table.*Member = &Timed<Slot, Member>::call;
}

}  // namespace

const Ops* profiled(const Ops* ops) {
  inner = ops;
  table = *ops;
  wrap<0, &Ops::pointer_info>();
  wrap<1, &Ops::buffer_id>();
  wrap<2, &Ops::stream_create>();
  wrap<3, &Ops::copy_async>();
  wrap<4, &Ops::copy_2d_async>();
  wrap<5, &Ops::stream_synchronize>();
  wrap<6, &Ops::pinned_alloc>();
  wrap<7, &Ops::pinned_free>();
  wrap<8, &Ops::ipc_get_handle>();
  wrap<9, &Ops::ipc_open_handle>();
  wrap<10, &Ops::ipc_close_handle>();
  wrap<11, &Ops::error_string>();
  wrap<12, &Ops::module_load>();
  wrap<13, &Ops::module_function>();
  wrap<14, &Ops::launch>();
  wrap<15, &Ops::device_alloc>();
  wrap<16, &Ops::device_free>();
  wrap<17, &Ops::synchronize_legacy>();
  wrap<18, &Ops::event_create>();
  wrap<19, &Ops::event_record>();
  wrap<20, &Ops::event_query>();
  wrap<21, &Ops::event_destroy>();
  table.name = ops->name;
  return &table;
}

void print_profile() {
  for (int i = 0; i < kSlots; ++i) {
    uint64_t calls = timings[i].calls.exchange(0), ns = timings[i].nanoseconds.exchange(0);
    if (calls == 0) continue;
    std::fprintf(stderr, "ferry cuda profile: pid %d %-20s %10llu calls %10.3f us mean %12.1f us total\n",
                 static_cast<int>(getpid()), kNames[i], static_cast<unsigned long long>(calls),
                 static_cast<double>(ns) / 1e3 / static_cast<double>(calls), static_cast<double>(ns) / 1e3);
  }
}

}  // namespace ferry::device
