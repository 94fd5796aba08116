// What the shared-memory collectives (coll/shm) need from this host: which
// world ranks share its memory, how to wake one that sleeps, and how a
// rank that waits on a flag sleeps without missing its wake-up.
//
// The runtime installs the shm transport here at MPI_Init (a higher layer
// handing a lower one what only it knows, docs/architecture.md): ranks the
// transport reaches share this host's memory, and its doorbells
// (transport/shm/wakeup.h) wake them. Without it (a rank alone on its host,
// FERRY_TRANSPORTS without shm) no communicator uses coll/shm.
//
// Waking: a rank that publishes a flag calls wake() for the ranks that may
// wait on it; that is a compiler barrier and one load per peer unless one
// sleeps. A waiting rank waits through the progress engine (wait.h), which
// polls, yields the core when ranks outnumber cores, and at last sleeps in
// the kernel; before it sleeps, the shm transport arms its doorbell
// (heavy fence) and then the source below re-checks every flag a thread
// of this process waits on, so no wake-up is lost.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ferry::transport::shm {
class Bell;
class ShmTransport;
}

namespace ferry::coll::shm {

// MPI_Init, after the transports' sources (the re-check must run after the
// shm transport has armed); `t` may be nullptr. uninstall(): MPI_Finalize,
// before the transports go.
void install(transport::shm::ShmTransport* t, int world_rank);
void uninstall();
bool installed();

// Whether world rank `peer` shares this host's memory (this rank does).
bool shares_memory(int peer);

// Wakes those of a fixed set of peers (world ranks) that sleep, after the
// caller's release store of what they wait for: a segment's other members,
// at every operation. Their bells are found at the first wake-up (the
// peers contacted then) and kept, so that a wake-up costs the fence and
// one load per peer (issue 29: looking each peer up again at every call
// was about 45 of a wake-up's 70 instructions, one or two per collective).
class PeerBells {
 public:
  void wake(const int* peers, size_t n);

 private:
  const transport::shm::ShmTransport* of_ = nullptr;  // the transport whose bells these are
  std::vector<transport::shm::Bell*> bells_;
};

// A flag some thread of this process waits to reach `target`, linked while
// it waits (engine lock held), so that the re-check before a sleep sees it.
struct Waiter {
  const std::atomic<uint64_t>* word;
  uint64_t target;
  const void* thread;  // this_thread() of the waiting thread
  Waiter* next = nullptr;
};
// Tells the calling thread from the others (the address of a thread_local).
const void* this_thread();
void add_waiter(Waiter* w);
void remove_waiter(Waiter* w);

}  // namespace ferry::coll::shm
