// MPI_T performance variables (MPI-4.0 §15.3.7): what the runtime counts,
// and what a tool's handle on one of them reads.
//
// The variables are per process (MPI_T_BIND_NO_OBJECT), each an
// MPI_UNSIGNED_LONG_LONG:
//   ferry.transport.<shm|tcp|self>.{messages,bytes}_{sent,received}
//       COUNTER (transport/traffic.h)
//   ferry.p2p.rendezvous_sends        COUNTER: messages sent by rendezvous
//   ferry.p2p.unexpected_queue        LEVEL: messages waiting for a receive
//   ferry.p2p.unexpected_queue_peak   HIGHWATERMARK of that level
//   ferry.coll.<operation>.<algorithm> COUNTER: calls that chose it
//
// The layers that count register their variables at load time
// (add_performance_variable, from a static initializer), so the list is
// complete before MPI_T_init_thread and never changes afterwards.
//
// Counting stays off the locks: a counter is a relaxed atomic that one
// writer at a time (the engine lock's holder) bumps with a plain add. A
// handle remembers where its counter stood, so sessions are independent:
//   COUNTER (not continuous, writable): counts only while started;
//     reset/write set the handle's own value.
//   LEVEL (continuous, read-only): the current value.
//   HIGHWATERMARK (continuous, resettable): the peak since the handle was
//     allocated or reset; each such handle watches the level in one of a
//     few slots (Level::kWatchers), so that the path that raises the level
//     pays nothing while no tool watches.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace ferry::tool {

class Level {
 public:
  static constexpr int kWatchers = 8;
  // The level's one writer (engine lock held).
  void raise();
  void lower();
  uint64_t now() const { return now_.load(std::memory_order_relaxed); }
  // A slot whose peak starts at the current level; -1 when all are taken.
  int watch();
  void unwatch(int slot);
  void rewatch(int slot);  // the peak restarts at the current level
  uint64_t peak(int slot) const { return peaks_[slot].load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> now_{0};
  std::atomic<uint32_t> watching_{0};  // a bit per claimed slot
  std::atomic<uint64_t> peaks_[kWatchers]{};
};

struct PerformanceVariable {
  std::string name;
  std::string doc;
  int var_class;                                  // MPI_T_PVAR_CLASS_COUNTER, _LEVEL, _HIGHWATERMARK
  int category;                                   // base/tool_categories.h
  const std::atomic<uint64_t>* counter = nullptr; // COUNTER
  Level* level = nullptr;                         // LEVEL, HIGHWATERMARK
  bool continuous() const;
  bool readonly() const;
};

// Registers a variable (static initialization time); returns its index.
int add_performance_variable(PerformanceVariable v);
int performance_variable_count();
const PerformanceVariable* performance_variable(int index);  // nullptr: out of range
int performance_variable_index(const std::string& name, int var_class);  // -1: none

// What one handle (MPI_T_pvar_handle_alloc) holds: the variable and the
// handle's own view of it.
struct PvarView {
  int index = -1;
  bool started = false;
  uint64_t kept = 0;   // COUNTER: counted in earlier started spans (or written)
  uint64_t since = 0;  // COUNTER: the counter when this span started
  int slot = -1;       // HIGHWATERMARK: the Level slot it watches
};
// False when no watermark slot is free (MPI_T_ERR_OUT_OF_HANDLES).
bool open_view(int index, PvarView* view);
void close_view(PvarView* view);
void start_view(PvarView* view);  // caller checks !continuous
void stop_view(PvarView* view);
uint64_t read_view(const PvarView& view);
void reset_view(PvarView* view);  // caller checks !readonly
void write_view(PvarView* view, uint64_t value);

}  // namespace ferry::tool
