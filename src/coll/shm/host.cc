#include "coll/shm/host.h"

#include "coll/shm/segment.h"
#include "coll/shm/started.h"
#include "common/config.h"
#include "progress/progress.h"
#include "progress/source.h"
#include "transport/shm/shm_transport.h"

namespace ferry::coll::shm {
namespace {

transport::shm::ShmTransport* transport_ = nullptr;
int me_ = -1;
Waiter* waiters_ = nullptr;  // engine lock held

// Polls nothing; runs after the shm transport's arm_wakeup, which fenced,
// so a flag stored before a peer saw us asleep is visible here.
//
// Only the sleeping thread's own flag refuses the sleep. Another thread's
// flag that has been reached is announced instead (progress::note_event),
// and the sleep goes ahead: it lets go of the engine lock, which wakes the
// parked owner of that flag (progress.h, "Threads") and lets it take the
// lock. Refusing the sleep for it instead kept the lock held: the sleeper
// went round wait_until again, found the same flag, refused again, and the
// parked thread, woken but unable to take the lock back, never ran
// (tests/mpi/comm/comm_threads.c hung so under MPI_THREAD_MULTIPLE, one
// thread in an allreduce on one communicator, another waiting on another).
//
// It raises the flags that calls with no data deferred (segment.h,
// defer_nothing): this rank now waits or polls for something, and a rank
// of an erroneous program may wait on those flags.
//
// It also moves the nonblocking and persistent collectives started on
// segments (started.h) at every pass, and refuses the sleep while one of
// them could go further: any thread's pass advances those, so the refusal
// lasts one pass.
class Recheck final : public progress::Source {
 public:
  int progress() override {
    raise_all_deferred();
    return advance_started();
  }
  bool arm_wakeup() override {
    if (started_can_advance()) return false;
    const void* me = this_thread();
    for (Waiter* w = waiters_; w != nullptr; w = w->next) {
      if (w->word->load(std::memory_order_acquire) < w->target) continue;
      if (w->thread == me) return false;
      progress::note_event();
    }
    return true;
  }
};
Recheck recheck_;
bool source_added_ = false;

}  // namespace

void install(transport::shm::ShmTransport* t, int world_rank) {
  transport_ = t;
  me_ = world_rank;
  // remove_all_sources() at finalize forgets it; add it again at each start.
  if (t != nullptr) progress::add_source(&recheck_);
  source_added_ = t != nullptr;
}

void uninstall() {
  transport_ = nullptr;
  source_added_ = false;
}

bool installed() { return transport_ != nullptr; }

// FERRY_COLL_TEST_RANKS_PER_HOST splits this host into groups of world
// ranks, so that tests on one machine run the collectives of a job across
// hosts (coll/hier) and the checks that keep coll/shm to one host.
static bool same_test_host(int peer) {
  static const int64_t per_host = config::integer("FERRY_COLL_TEST_RANKS_PER_HOST");
  return per_host <= 0 || peer / per_host == me_ / per_host;
}

bool shares_memory(int peer) {
  return peer == me_ || (transport_ != nullptr && transport_->reaches(peer) && same_test_host(peer));
}

void PeerBells::wake(const int* peers, size_t n) {
  if (transport_ == nullptr) return;
  // Found at the first wake-up, and again should the transport be another
  // one than the bells' (a later initialisation).
  if (of_ != transport_) [[unlikely]] {
    transport_->bells_of(peers, n, &bells_);
    of_ = transport_;
  }
  transport_->ring(bells_.data(), bells_.size());
}

const void* this_thread() {
  static thread_local char mark;
  return &mark;
}

void add_waiter(Waiter* w) {
  w->next = waiters_;
  waiters_ = w;
}

void remove_waiter(Waiter* w) {
  for (Waiter** p = &waiters_; *p != nullptr; p = &(*p)->next)
    if (*p == w) {
      *p = w->next;
      return;
    }
}

}  // namespace ferry::coll::shm
