#include "coll/choice_counters.h"

#include <atomic>
#include <cstdint>
#include <string>

#include "base/tool_categories.h"
#include "common/profile_layout.h"
#include "base/tool_events.h"
#include "base/tool_pvars.h"
#include "mpi.h"
#include "progress/progress.h"

namespace ferry::coll {
namespace {

// Wide enough for every Operation and Algorithm value (checked below).
constexpr int kSlots = 32;
struct Choice {
  // Collectives of several threads (MPI_THREAD_MULTIPLE, different
  // communicators) may choose at once: a relaxed atomic add, no lock.
  std::atomic<uint64_t> calls{0};
  int pvar = -1;
};
Choice choices[kSlots][kSlots];
std::atomic<uint64_t*> profile_table{nullptr};

[[maybe_unused]] const bool registered = [] {
  for (int o = 0; o < kSlots; ++o) {
    const char* op = name(Operation(o));
    if (std::string(op) == "collective") continue;  // no such operation
    for (int a = 0; a < kSlots; ++a) {
      if (!offers(Operation(o), Algorithm(a))) continue;
      std::string algorithm = name(Algorithm(a));
      choices[o][a].pvar = tool::add_performance_variable(
          {std::string("ferry.coll.") + op + "." + algorithm,
           std::string("Calls of ") + op + " that used " + algorithm + " (set or chosen by the selection table)",
           MPI_T_PVAR_CLASS_COUNTER, tool::kColl, &choices[o][a].calls});
    }
  }
  return true;
}();

// One more call in a counter that MPI_T or the profile reads at any time. A
// locked add (x86's lock xadd) costs about 20 cycles, twice per collective
// with FERRY_PROFILE on, a few percent of an 8-byte MPI_Iallreduce + MPI_Wait:
// so it is locked only where threads may count at once (progress::threads_enabled);
// with one thread in MPI at a time a relaxed load and store are the plain
// add, and still no data race for a reader on another thread.
// The plain add is the likely path, laid out inline: GCC otherwise put it behind a jump there and
// one back, on the profile's add of every nonblocking collective's choice.
template <class Counter>  // std::atomic<uint64_t>& or std::atomic_ref<uint64_t>
void add_one(Counter&& n) {
  if (progress::threads_enabled) [[unlikely]] n.fetch_add(1, std::memory_order_relaxed);
  else n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace

void count_choice(Operation op, Algorithm a, const Query& q) {
  Choice& c = choices[static_cast<int>(op)][static_cast<int>(a)];
  add_one(c.calls);
  tool::note_algorithm(c.pvar, q.ranks, q.bytes);
  if (uint64_t* table = profile_table.load(std::memory_order_relaxed)) {
    namespace pl = profile_layout;
    static_assert(pl::kCollSlots <= kSlots);
    size_t slot = (size_t(op) * pl::kCollSlots + size_t(a)) * pl::kBuckets + size_t(pl::bucket(q.bytes));
    add_one(std::atomic_ref<uint64_t>(table[slot]));
  }
}

void set_profile_table(uint64_t* table) { profile_table.store(table, std::memory_order_relaxed); }

}  // namespace ferry::coll
