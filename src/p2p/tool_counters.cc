#include "p2p/tool_counters.h"

#include "base/tool_categories.h"
#include "mpi.h"

namespace ferry::p2p::counters {

std::atomic<uint64_t> rendezvous_sends{0};
tool::Level unexpected_queue;

namespace {

[[maybe_unused]] const bool registered = [] {
  tool::add_performance_variable({"ferry.p2p.rendezvous_sends",
                                  "Messages sent by the rendezvous protocol (larger than the eager limit, or "
                                  "synchronous)",
                                  MPI_T_PVAR_CLASS_COUNTER, tool::kP2p, &rendezvous_sends});
  tool::add_performance_variable({"ferry.p2p.unexpected_queue",
                                  "Messages that arrived before a matching receive and still wait for one",
                                  MPI_T_PVAR_CLASS_LEVEL, tool::kP2p, nullptr, &unexpected_queue});
  tool::add_performance_variable({"ferry.p2p.unexpected_queue_peak",
                                  "Most messages waiting for a receive at once, since the handle was allocated or "
                                  "reset",
                                  MPI_T_PVAR_CLASS_HIGHWATERMARK, tool::kP2p, nullptr, &unexpected_queue});
  return true;
}();

}  // namespace
}  // namespace ferry::p2p::counters
