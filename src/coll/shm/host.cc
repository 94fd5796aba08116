#include "coll/shm/host.h"

#include "progress/progress.h"
#include "progress/source.h"
#include "transport/shm/shm_transport.h"

namespace ferry::coll::shm {
namespace {

transport::shm::ShmTransport* transport_ = nullptr;
int me_ = -1;
Waiter* waiters_ = nullptr;  // engine lock held

// Polls nothing; only refuses a sleep while a flag a thread waits on has
// already been reached (arm_wakeup runs after the shm transport's, which
// fenced).
class Recheck final : public progress::Source {
 public:
  int progress() override { return 0; }
  bool arm_wakeup() override {
    for (Waiter* w = waiters_; w != nullptr; w = w->next)
      if (w->word->load(std::memory_order_acquire) >= w->target) return false;
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

bool shares_memory(int peer) { return peer == me_ || (transport_ != nullptr && transport_->reaches(peer)); }

void wake(const int* peers, size_t n) {
  if (transport_ != nullptr) transport_->wake(peers, n);
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
