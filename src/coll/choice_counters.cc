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
namespace choice_detail {

Choice choices[kSlots][kSlots];
std::atomic<uint64_t*> profile_table{nullptr};

namespace {

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

}  // namespace

void count_elsewhere(Operation op, Algorithm a, const Query& q) {
  tool::note_algorithm(choices[static_cast<int>(op)][static_cast<int>(a)].pvar, q.ranks, q.bytes);
  if (uint64_t* table = profile_table.load(std::memory_order_relaxed)) {
    namespace pl = profile_layout;
    static_assert(pl::kCollSlots <= kSlots);
    size_t slot = (size_t(op) * pl::kCollSlots + size_t(a)) * pl::kBuckets + size_t(pl::bucket(q.bytes));
    add_one(std::atomic_ref<uint64_t>(table[slot]));
  }
}

}  // namespace choice_detail

void set_profile_table(uint64_t* table) { choice_detail::profile_table.store(table, std::memory_order_relaxed); }

}  // namespace ferry::coll
