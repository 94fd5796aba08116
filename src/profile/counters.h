// FERRY_PROFILE's counting in each rank: what the profile tool's wrappers of every MPI function
// (generated, bindings/gen_qmpi.py `profile`) call around the implementation.
//
// Cost: nothing at all when FERRY_PROFILE is unset, because the wrappers are a QMPI tool that is
// then never attached (api/qmpi.cc): the entry points see an empty slot, as without any tool.
// When it is set, a call pays two clock reads and a handful of adds into memory that is already
// there: no lock, no allocation, no system call. The counters sit in a shared mapping of a file
// (common/profile_layout.h) from MPI_Init on, so what a rank counted survives its crash; before
// MPI_Init (and for calls that come before it, MPI_Init itself included) they go to a static area
// that start() copies into the mapping.
//
// Threads: below MPI_THREAD_MULTIPLE one thread calls MPI at a time, so plain adds are exact. Under
// it two threads may add to the same counter at once; the adds are then relaxed atomic ones
// (progress::threads_enabled, the same predictable branch the engine lock takes).
#pragma once

#include <atomic>
#include <cstdint>

#include "common/profile_layout.h"
#include "profile/clock.h"
#include "progress/progress.h"

namespace ferry::profile {

namespace layout = profile_layout;

// Where the counters are now: the static area, then the mapping. Only start() changes them.
struct Where {
  layout::Call* calls = nullptr;
  uint64_t* peer_bytes = nullptr;     // nullptr until start(): no world yet
  uint64_t* peer_messages = nullptr;
  int world_size = 0;
};
extern Where where;

inline uint64_t now() { return clock::ticks(); }

inline void add(uint64_t& counter, uint64_t amount) {
  if (progress::threads_enabled)
    std::atomic_ref<uint64_t>(counter).fetch_add(amount, std::memory_order_relaxed);
  else
    counter += amount;
}

// A call of function `index` (QMPI's enumerator, or past it for the MPI-IO functions) that took
// `ticks`; `bytes` < 0 when the call moves no data (no size histogram entry).
inline void note_call(int index, uint64_t ticks, int64_t bytes) {
  layout::Call& c = where.calls[index];
  add(c.count, 1);
  add(c.ticks, ticks);
  if (bytes >= 0) {
    add(c.bytes, uint64_t(bytes));
    add(c.sizes[layout::bucket(uint64_t(bytes))], 1);
  }
}

// A point-to-point message of `bytes` to world rank `peer` (a send's start).
inline void note_message(int peer, uint64_t bytes) {
  if (peer < 0 || peer >= where.world_size) return;  // MPI_PROC_NULL, or a peer of another job
  add(where.peer_bytes[peer], bytes);
  add(where.peer_messages[peer], 1);
}

// Set when the profile tool is attached: the generated MPI_File_ entry points then go through
// the profile's wrappers (MPI-IO is outside QMPI, as in MPICH).
extern bool io_enabled;

// The number of functions counted: QMPI's plus the MPI-IO ones (set by the generated wrappers).
constexpr int kMaxCalls = 1024;

// The profile tool's attachment (the process's first MPI call): chooses the clock.
void attach();

// MPI_Init's (or MPI_Init_thread's) return: maps this rank's file in FERRY_PROFILE_DIR, moves the
// counts so far into it, installs the collective choice table and writes the job's facts.
// `names[i]` names function i, for the report. Prints one line and counts on in memory only if
// the file cannot be made.
void start(const char* const* names, int num_calls);

// MPI_Finalize's start: the end time and each peer's transport (routes are all known by then).
void finishing();
// MPI_Finalize's return: marks the file complete.
void finished();

}  // namespace ferry::profile
