// Which algorithms the collectives chose, for MPI_T: a COUNTER per
// operation and algorithm it offers, ferry.coll.<operation>.<algorithm>
// (base/tool_pvars.h), and the ferry.coll.algorithm event
// (base/tool_events.h). select() calls count_choice once per call.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/tool_events.h"
#include "coll/select.h"
#include "progress/progress.h"

namespace ferry::coll {

namespace choice_detail {

// Wide enough for every Operation and Algorithm value.
constexpr int kSlots = 32;
struct Choice {
  // Collectives of several threads (MPI_THREAD_MULTIPLE, different
  // communicators) may choose at once: a relaxed atomic add, no lock.
  std::atomic<uint64_t> calls{0};
  int pvar = -1;
};
extern Choice choices[kSlots][kSlots];
extern std::atomic<uint64_t*> profile_table;

// Set while this thread runs a collective that the program did not call
// (UncountedChoices): its choice is nobody's to count.
inline thread_local constinit bool uncounted __attribute__((tls_model("initial-exec"))) = false;

// The ferry.coll.algorithm event and FERRY_PROFILE's table (choice_counters.cc).
void count_elsewhere(Operation op, Algorithm a, const Query& q);

// One more call in a counter that MPI_T or the profile reads at any time. A
// locked add (x86's lock xadd) costs about 20 cycles, twice per collective
// with FERRY_PROFILE on, a few percent of an 8-byte MPI_Iallreduce + MPI_Wait:
// so it is locked only where threads may count at once (progress::threads_enabled);
// with one thread in MPI at a time a relaxed load and store are the plain
// add, and still no data race for a reader on another thread.
template <class Counter>  // std::atomic<uint64_t>& or std::atomic_ref<uint64_t>
inline __attribute__((always_inline)) void add_one(Counter&& n) {
  if (progress::threads_enabled) [[unlikely]] n.fetch_add(1, std::memory_order_relaxed);
  else n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace choice_detail

// Counts the choice of `a` for `op`. Inline: every collective call counts
// one, and the usual case is the counter's add alone (where op and a are
// constants, one add to a fixed address). Out of line, with the event and
// profile tests inside, it cost every call about 40 instructions per rank
// (issue 29: a 2-rank MPI_Bcast of 8 bytes is ~390 at the root).
inline __attribute__((always_inline)) void count_choice(Operation op, Algorithm a, const Query& q) {
  using namespace choice_detail;
  if (uncounted) [[unlikely]]
    return;
  add_one(choices[static_cast<int>(op)][static_cast<int>(a)].calls);
  if (tool::wanted(tool::EventKind::kCollAlgorithm) || profile_table.load(std::memory_order_relaxed) != nullptr)
      [[unlikely]]
    count_elsewhere(op, a, q);
}

// While one lives, this thread's collectives count no choice: no MPI_T
// counter, no ferry.coll.algorithm event, nothing in FERRY_PROFILE's table
// (the profile's own barrier, profile/late_partners.cc, is not one of the
// program's calls). Only this thread's: others count on.
class UncountedChoices {
 public:
  UncountedChoices() : was_(choice_detail::uncounted) { choice_detail::uncounted = true; }
  ~UncountedChoices() { choice_detail::uncounted = was_; }
  UncountedChoices(const UncountedChoices&) = delete;
  UncountedChoices& operator=(const UncountedChoices&) = delete;

 private:
  bool was_;
};

// FERRY_PROFILE (src/profile/) installs a table here at MPI_Init: uint64_t[16 operations][16
// algorithms][profile_layout::kBuckets], counted by the call's bytes (Query::bytes). Installed from
// above because the profile sits above coll; while none is installed a choice costs one more load.
void set_profile_table(uint64_t* table);

}  // namespace ferry::coll
