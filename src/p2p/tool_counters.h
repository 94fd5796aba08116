// What the point-to-point engine counts for MPI_T (base/tool_pvars.h):
// messages sent by the rendezvous protocol, and the unexpected queue's
// length with its peak. Each site is one call, under the engine lock.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/tool_pvars.h"

namespace ferry::p2p::counters {

extern std::atomic<uint64_t> rendezvous_sends;
extern tool::Level unexpected_queue;

inline void rendezvous_sent() {
  rendezvous_sends.store(rendezvous_sends.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace ferry::p2p::counters
