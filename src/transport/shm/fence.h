// The two fences of the wake-up handshake (transport/shm/wakeup.h), made
// asymmetric with membarrier(2) so that the fast path pays nothing.
//
// The handshake needs a full fence on both sides: the peer between its store
// of a ring position and its load of the sleeper count, the owner between
// its store of the count and its re-check of the rings. On the peer's side
// that fence would sit on every message, and it is not cheap: it waits until
// the packet's stores have left the store buffer, which the rest of the send
// would otherwise overlap. With MEMBARRIER_CMD_GLOBAL_EXPEDITED the owner,
// about to sleep anyway, makes every CPU that runs a registered process
// execute a full fence (an IPI, a microsecond or so), and the peer's side
// shrinks to a compiler barrier: any peer either had its position stored
// before that IPI, so the owner sees it, or loads the count after it, so it
// sees the owner asleep. (Folly's asymmetricHeavyBarrier and liburcu use
// the same pairing.)
//
// The kernel must allow it (Linux 4.16, no seccomp filter against it), in
// both processes: a peer drops its fence only when it is registered itself
// and the owner says (in its wake word) that it sleeps with membarrier.
// Otherwise both sides use plain full fences.
#pragma once

#include <atomic>

namespace ferry::transport::shm::fence {

// Registers this process for global expedited membarrier, once; true if
// the kernel allows it.
bool enable_asymmetric();

// The owner's side, before it re-checks and sleeps.
void heavy();

// A peer's side, after the store the owner waits for. `asymmetric`: this
// process and the owner both use membarrier.
inline void light(bool asymmetric) {
  if (asymmetric) std::atomic_signal_fence(std::memory_order_seq_cst);
  else std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace ferry::transport::shm::fence
