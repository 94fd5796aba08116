#include "base/tool_pvars.h"

#include <bit>
#include <mutex>
#include <vector>

#include "base/tool_categories.h"
#include "mpi.h"
#include "transport/traffic.h"

namespace ferry::tool {
namespace {

// Written only by static initializers (before main, one thread), read after.
std::vector<PerformanceVariable>& table() {
  static std::vector<PerformanceVariable> t;
  return t;
}

void raise_peak(std::atomic<uint64_t>& peak, uint64_t value) {
  uint64_t seen = peak.load(std::memory_order_relaxed);
  while (seen < value && !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// The transports' counters (transport/traffic.h), registered here because
// the transport layer sits below this registry.
[[maybe_unused]] const bool transport_variables = [] {
  using namespace transport::traffic;
  for (int m = 0; m < kMedia; ++m) {
    std::string medium = name(Medium(m));
    std::string prefix = "ferry.transport." + medium + ".";
    Counts& c = counts[m];
    add_performance_variable({prefix + "messages_sent", "Messages sent through " + medium, MPI_T_PVAR_CLASS_COUNTER,
                              kTransport, &c.messages_sent});
    add_performance_variable({prefix + "bytes_sent", "Bytes of the messages sent through " + medium,
                              MPI_T_PVAR_CLASS_COUNTER, kTransport, &c.bytes_sent});
    add_performance_variable({prefix + "messages_received", "Messages received through " + medium,
                              MPI_T_PVAR_CLASS_COUNTER, kTransport, &c.messages_received});
    add_performance_variable({prefix + "bytes_received", "Bytes of the messages received through " + medium,
                              MPI_T_PVAR_CLASS_COUNTER, kTransport, &c.bytes_received});
  }
  return true;
}();

}  // namespace

void Level::raise() {
  uint64_t value = now_.load(std::memory_order_relaxed) + 1;
  now_.store(value, std::memory_order_relaxed);
  for (uint32_t mask = watching_.load(std::memory_order_relaxed); mask != 0; mask &= mask - 1)
    raise_peak(peaks_[std::countr_zero(mask)], value);
}

void Level::lower() { now_.store(now_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed); }

int Level::watch() {
  uint32_t seen = watching_.load(std::memory_order_relaxed);
  for (;;) {
    if (seen == (1u << kWatchers) - 1) return -1;
    int slot = std::countr_one(seen);
    peaks_[slot].store(now(), std::memory_order_relaxed);
    if (watching_.compare_exchange_weak(seen, seen | (1u << slot), std::memory_order_acq_rel)) return slot;
  }
}

void Level::unwatch(int slot) { watching_.fetch_and(~(1u << slot), std::memory_order_acq_rel); }

void Level::rewatch(int slot) { peaks_[slot].store(now(), std::memory_order_relaxed); }

// MPI-4.0 §15.3.7: counters count while started; levels and watermarks
// describe the process's state whether or not a tool looks, so they are
// continuous. A level is the runtime's to change; a counter or a watermark
// a tool may restart.
bool PerformanceVariable::continuous() const { return var_class != MPI_T_PVAR_CLASS_COUNTER; }
bool PerformanceVariable::readonly() const { return var_class == MPI_T_PVAR_CLASS_LEVEL; }

int add_performance_variable(PerformanceVariable v) {
  table().push_back(std::move(v));
  return static_cast<int>(table().size()) - 1;
}

int performance_variable_count() { return static_cast<int>(table().size()); }

const PerformanceVariable* performance_variable(int index) {
  if (index < 0 || index >= performance_variable_count()) return nullptr;
  return &table()[static_cast<size_t>(index)];
}

int performance_variable_index(const std::string& name, int var_class) {
  for (size_t i = 0; i < table().size(); ++i)
    if (table()[i].name == name && table()[i].var_class == var_class) return static_cast<int>(i);
  return -1;
}

bool open_view(int index, PvarView* view) {
  const PerformanceVariable& v = table()[static_cast<size_t>(index)];
  *view = PvarView{};
  view->index = index;
  view->started = v.continuous();
  if (v.var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK) {
    view->slot = v.level->watch();
    if (view->slot < 0) return false;
  }
  return true;
}

void close_view(PvarView* view) {
  const PerformanceVariable& v = table()[static_cast<size_t>(view->index)];
  if (view->slot >= 0) v.level->unwatch(view->slot);
  view->slot = -1;
}

void start_view(PvarView* view) {
  if (view->started) return;
  view->since = table()[static_cast<size_t>(view->index)].counter->load(std::memory_order_relaxed);
  view->started = true;
}

void stop_view(PvarView* view) {
  if (!view->started) return;
  view->kept = read_view(*view);
  view->started = false;
}

uint64_t read_view(const PvarView& view) {
  const PerformanceVariable& v = table()[static_cast<size_t>(view.index)];
  switch (v.var_class) {
    case MPI_T_PVAR_CLASS_LEVEL: return v.level->now();
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return v.level->peak(view.slot);
    default:
      return view.started ? view.kept + (v.counter->load(std::memory_order_relaxed) - view.since) : view.kept;
  }
}

void reset_view(PvarView* view) { write_view(view, 0); }

void write_view(PvarView* view, uint64_t value) {
  const PerformanceVariable& v = table()[static_cast<size_t>(view->index)];
  if (v.var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK) {
    // A watermark restarts from the current level (writing a value below
    // it would describe a state the process never had).
    v.level->rewatch(view->slot);
    return;
  }
  view->kept = value;
  view->since = v.counter->load(std::memory_order_relaxed);
}

}  // namespace ferry::tool
