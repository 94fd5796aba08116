#include "rma/epochs.h"

#include <sched.h>

#include <atomic>
#include <algorithm>

#include "base/op.h"
#include "coll/collectives.h"
#include "p2p/pt2pt.h"
#include "rma/active_message.h"
#include "rma/rdma.h"

namespace ferry::rma {
namespace {

// Tags of the window's private communicator (nobody else uses it).
constexpr int kTagPost = 3;
constexpr int kTagComplete = 4;

const Datatype& bytes_type() { return *find_datatype(MPI_BYTE); }

// The window ranks of a group's members; MPI_ERR_GROUP for a process that
// is not in the window.
Err window_ranks(const Window& w, const Group& g, std::vector<int>* out, const char* call) {
  out->clear();
  for (int world : g.members) {
    int found = -1;
    for (int r = 0; r < w.comm->size; ++r)
      if (w.comm->world_rank(r) == world) found = r;
    if (found < 0) return fail(MPI_ERR_GROUP, "%s: the group has a process that is not in the window", call);
    out->push_back(found);
  }
  return {};
}

void memory_fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// Spins (and progresses: a remote origin's request may need this process)
// until `try_once` succeeds. Passive-target locks are held briefly by
// correct programs, and a holder never waits for us inside the lock.
template <typename Try>
void spin_until(Try try_once) {
  progress::Lock lock;
  for (unsigned spins = 0; !try_once(); ++spins) {
    progress::poll();
    if (spins > 16) sched_yield();
  }
}

// A lock word on this host (rma/control.h), or the target's service takes
// it for us (another host).
bool through_service(const Window& w, int target) { return w.targets[static_cast<size_t>(target)].slot == nullptr; }

void acquire_here(Window& w, int target, bool exclusive) {
  Slot& s = *w.targets[static_cast<size_t>(target)].slot;
  spin_until([&] { return exclusive ? try_lock_exclusive(s) : try_lock_shared(s); });
}

void release_here(Window& w, int target, bool exclusive) {
  Slot& s = *w.targets[static_cast<size_t>(target)].slot;
  memory_fence();
  if (exclusive) unlock_exclusive(s);
  else unlock_shared(s);
}

// A fence on a window with active messages, without waiting for their
// acknowledgements (rma/active_message.h):
//   Phase 1: a reduce-scatter of the requests each origin sent each target
//            in the epoch: every rank learns how many it must execute. Each
//            rank's sum depends on every rank's count, so it also keeps
//            everyone from the next epoch until all have arrived, as a
//            barrier would. A second element of each block says whether
//            any rank reaches another rank's memory itself (a host with
//            several ranks): then, phase 3, a barrier, because such a rank
//            may read a target's memory before that target has executed
//            what others sent it.
//   Phase 2: each rank waits until it executed that many requests of the
//            epoch and its own gets and fetching operations are answered.
// Cost: the reduce-scatter (2 ranks: one message each way) against a round
// trip of acknowledgements and then a barrier. A dynamic window's target
// checks the addresses, so its errors are waited for first (a full flush),
// as before.
Err counted_fence(Window& w) {
  // The epoch's requests through the NIC are in the target's memory before
  // this rank joins the reduce-scatter, which no target leaves before it.
  // A failure among them is returned after the fence's collectives, which
  // the other ranks are in too.
  Err nic = rdma::wait(w, -1);
  if (w.flavor == Flavor::kDynamic)
    if (Err e = w.service->flush(-1)) return e;
  std::vector<uint64_t> sent = w.service->sent_this_epoch();
  // Memory reached without the target's service (mapped, by cross-memory
  // attach, or through the NIC) may be read or written in the next epoch
  // before the target executed this one's requests: the barrier keeps that
  // from happening.
  bool reaches_others = false;
  for (int t = 0; t < w.comm->size; ++t) {
    if (t == w.rank()) continue;
    if (w.targets[static_cast<size_t>(t)].reach != Reach::kMessages) reaches_others = true;
    if (w.rdma && w.rdma->remote[static_cast<size_t>(t)].key_bytes != 0) reaches_others = true;
  }
  std::vector<uint64_t> blocks(2 * sent.size());
  for (size_t t = 0; t < sent.size(); ++t) {
    blocks[2 * t] = sent[t];
    blocks[2 * t + 1] = reaches_others ? 1 : 0;
  }
  uint64_t mine[2] = {0, 0};
  if (Err e = coll::reduce_scatter_block(blocks.data(), mine, 2, find_datatype(MPI_UINT64_T), find_op(MPI_SUM),
                                         w.comm))
    return e;
  if (Err e = w.service->end_fence_epoch(mine[0])) return e;
  if (mine[1] != 0)
    if (Err e = coll::barrier(w.comm)) return e;
  return nic;
}

bool valid_assert(int assert, int allowed) { return (assert & ~allowed) == 0; }

Err bad_assert(const char* call, int assert) {
  return fail(MPI_ERR_ASSERT, "%s: invalid assert 0x%x", call, assert);
}

}  // namespace

Err check_access(const Window& w, int target, const char* call) {
  const Epochs& e = w.epochs;
  if (e.fence || e.lock_all) return {};
  if (!e.locks.empty() && e.locks[static_cast<size_t>(target)] != LockState::kNone) return {};
  if (e.started && std::find(e.start_group.begin(), e.start_group.end(), target) != e.start_group.end()) return {};
  (void)call;
  return fail(MPI_ERR_RMA_SYNC, "no access epoch includes target rank %d (call MPI_Win_fence, MPI_Win_start, "
              "MPI_Win_lock or MPI_Win_lock_all first)", target);
}

Err flush(Window& w, int target) {
  if (w.targets[static_cast<size_t>(target)].reach == Reach::kMessages) {
    Err nic = rdma::wait(w, target);
    if (Err e = w.service->flush(target)) return e;
    if (!nic.ok()) return nic;
  } else if (w.service != nullptr) {
    w.service->poke();  // requests of others, as in rma::start
  }
  memory_fence();
  return {};
}

Err flush_all(Window& w) {
  Err nic = rdma::wait(w, -1);
  if (w.service != nullptr)
    if (Err e = w.service->flush(-1)) return e;
  if (!nic.ok()) return nic;
  memory_fence();
  return {};
}

Err quiesce(Window& w) { return flush_all(w); }

Err sync(Window&) {
  memory_fence();
  return {};
}

Err fence(Window& w, int assert) {
  if (!valid_assert(assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED))
    return bad_assert("MPI_Win_fence", assert);
  if (w.epochs.started || w.epochs.posted || w.epochs.locks_held > 0 || w.epochs.lock_all)
    return fail(MPI_ERR_RMA_SYNC, "another synchronization epoch (start, post, lock) is still open");
  if (w.service == nullptr) {
    // Every operation completed in its call (rma/direct.h): a barrier ends
    // the epoch, and nobody starts the next before all arrived.
    memory_fence();
    if (Err e = coll::barrier(w.comm)) return e;
  } else if (Err e = counted_fence(w)) {
    return e;
  }
  memory_fence();
  w.epochs.fence = (assert & MPI_MODE_NOSUCCEED) == 0;
  return {};
}

Err post(Window& w, const Group& g, int assert) {
  if (!valid_assert(assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT))
    return bad_assert("MPI_Win_post", assert);
  if (w.epochs.posted) return fail(MPI_ERR_RMA_SYNC, "an exposure epoch is already open (MPI_Win_post without MPI_Win_wait)");
  std::vector<int> origins;
  if (Err e = window_ranks(w, g, &origins, "MPI_Win_post")) return e;
  memory_fence();
  for (int origin : origins)
    if (Err e = pt2pt::send({nullptr, 0, &bytes_type()}, origin, kTagPost, w.comm, Request::Mode::kStandard)) return e;
  w.epochs.posted = true;
  w.epochs.post_group = std::move(origins);
  return {};
}

Err start(Window& w, const Group& g, int assert) {
  if (!valid_assert(assert, MPI_MODE_NOCHECK)) return bad_assert("MPI_Win_start", assert);
  if (w.epochs.started) return fail(MPI_ERR_RMA_SYNC, "an access epoch is already open (MPI_Win_start without MPI_Win_complete)");
  std::vector<int> targets;
  if (Err e = window_ranks(w, g, &targets, "MPI_Win_start")) return e;
  // Each target's post says its exposure epoch is open (§12.5.2).
  for (int target : targets) {
    int code = MPI_SUCCESS;
    if (Err e = pt2pt::recv(nullptr, 0, &bytes_type(), target, kTagPost, w.comm, MPI_STATUS_IGNORE, &code)) return e;
  }
  memory_fence();
  w.epochs.started = true;
  w.epochs.start_group = std::move(targets);
  return {};
}

Err complete(Window& w) {
  if (!w.epochs.started) return fail(MPI_ERR_RMA_SYNC, "no access epoch is open (MPI_Win_complete without MPI_Win_start)");
  for (int target : w.epochs.start_group)
    if (Err e = flush(w, target)) return e;
  for (int target : w.epochs.start_group)
    if (Err e = pt2pt::send({nullptr, 0, &bytes_type()}, target, kTagComplete, w.comm, Request::Mode::kStandard))
      return e;
  w.epochs.started = false;
  w.epochs.start_group.clear();
  return {};
}

Err wait(Window& w) {
  if (!w.epochs.posted) return fail(MPI_ERR_RMA_SYNC, "no exposure epoch is open (MPI_Win_wait without MPI_Win_post)");
  for (int origin : w.epochs.post_group) {
    int code = MPI_SUCCESS;
    if (Err e = pt2pt::recv(nullptr, 0, &bytes_type(), origin, kTagComplete, w.comm, MPI_STATUS_IGNORE, &code)) return e;
  }
  memory_fence();
  w.epochs.posted = false;
  w.epochs.post_group.clear();
  return {};
}

Err test(Window& w, bool* done) {
  if (!w.epochs.posted) return fail(MPI_ERR_RMA_SYNC, "no exposure epoch is open (MPI_Win_test without MPI_Win_post)");
  auto& group = w.epochs.post_group;
  for (size_t i = 0; i < group.size();) {
    if (!pt2pt::iprobe(group[i], kTagComplete, w.comm, MPI_STATUS_IGNORE)) {
      ++i;
      continue;
    }
    int code = MPI_SUCCESS;
    if (Err e = pt2pt::recv(nullptr, 0, &bytes_type(), group[i], kTagComplete, w.comm, MPI_STATUS_IGNORE, &code))
      return e;
    group.erase(group.begin() + static_cast<long>(i));
  }
  *done = group.empty();
  if (*done) {
    memory_fence();
    w.epochs.posted = false;
  }
  return {};
}

Err lock(Window& w, int lock_type, int target, int assert) {
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
    return fail(MPI_ERR_LOCKTYPE, "invalid lock_type %d (MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED)", lock_type);
  if (!valid_assert(assert, MPI_MODE_NOCHECK)) return bad_assert("MPI_Win_lock", assert);
  if (target == MPI_PROC_NULL) return {};
  if (w.epochs.lock_all) return fail(MPI_ERR_RMA_SYNC, "the window is locked with MPI_Win_lock_all already");
  LockState& state = w.epochs.locks[static_cast<size_t>(target)];
  if (state != LockState::kNone)
    return fail(MPI_ERR_RMA_SYNC, "target rank %d is already locked by this process", target);
  bool exclusive = lock_type == MPI_LOCK_EXCLUSIVE;
  if ((assert & MPI_MODE_NOCHECK) == 0) {
    if (!through_service(w, target)) acquire_here(w, target, exclusive);
    else if (Err e = w.service->request_lock(target, exclusive); !e.ok() || !(e = w.service->flush(target)).ok())
      return e;
  }
  memory_fence();
  state = exclusive ? LockState::kExclusive : LockState::kShared;
  if (assert & MPI_MODE_NOCHECK) state = LockState::kShared;  // held by nobody: nothing to release
  ++w.epochs.locks_held;
  w.epochs.nocheck.resize(w.epochs.locks.size());
  w.epochs.nocheck[static_cast<size_t>(target)] = (assert & MPI_MODE_NOCHECK) != 0;
  return {};
}

Err unlock(Window& w, int target) {
  if (target == MPI_PROC_NULL) return {};
  LockState& state = w.epochs.locks[static_cast<size_t>(target)];
  if (state == LockState::kNone)
    return fail(MPI_ERR_RMA_SYNC, "target rank %d is not locked by this process (MPI_Win_unlock without "
                "MPI_Win_lock)", target);
  bool nocheck = w.epochs.nocheck[static_cast<size_t>(target)];
  bool exclusive = state == LockState::kExclusive;
  Err e;
  if (!nocheck && through_service(w, target)) {
    // The unlock request goes behind the epoch's operations, and the
    // target's service executes one origin's requests in order: waiting for
    // every answer completes them and releases the lock in one round trip.
    // Requests through the NIC complete first: the lock covers them.
    e = rdma::wait(w, target);
    if (Err sent = w.service->request_unlock(target, exclusive); e.ok()) e = std::move(sent);
    Err flushed = w.service->flush(target);
    if (e.ok()) e = std::move(flushed);
  } else {
    e = flush(w, target);
    // Released even when an operation failed: the epoch is over either way.
    if (!nocheck) release_here(w, target, exclusive);
  }
  state = LockState::kNone;
  --w.epochs.locks_held;
  return e;
}

Err lock_all(Window& w, int assert) {
  if (!valid_assert(assert, MPI_MODE_NOCHECK)) return bad_assert("MPI_Win_lock_all", assert);
  if (w.epochs.lock_all || w.epochs.locks_held > 0)
    return fail(MPI_ERR_RMA_SYNC, "the window is already locked by this process");
  if ((assert & MPI_MODE_NOCHECK) == 0) {
    // Other hosts' targets are asked all at once and waited for together:
    // one round trip, not one per target.
    bool asked = false;
    for (int t = 0; t < w.comm->size; ++t)
      if (through_service(w, t)) {
        if (Err e = w.service->request_lock(t, false)) return e;
        asked = true;
      }
    for (int t = 0; t < w.comm->size; ++t)
      if (!through_service(w, t)) acquire_here(w, t, false);
    if (asked)
      if (Err e = w.service->flush(-1)) return e;
  }
  memory_fence();
  w.epochs.lock_all = true;
  w.epochs.lock_all_nocheck = (assert & MPI_MODE_NOCHECK) != 0;
  return {};
}

Err unlock_all(Window& w) {
  if (!w.epochs.lock_all)
    return fail(MPI_ERR_RMA_SYNC, "the window is not locked with MPI_Win_lock_all");
  // As in unlock: other hosts' unlock requests follow the operations, and
  // one flush waits for both.
  bool nocheck = w.epochs.lock_all_nocheck;
  Err first = rdma::wait(w, -1);  // before the locks go: they cover these requests
  if (!nocheck)
    for (int t = 0; t < w.comm->size; ++t)
      if (through_service(w, t))
        if (Err e = w.service->request_unlock(t, false); !e.ok() && first.ok()) first = std::move(e);
  if (Err e = flush_all(w); !e.ok() && first.ok()) first = std::move(e);
  if (!nocheck)
    for (int t = 0; t < w.comm->size; ++t)
      if (!through_service(w, t)) release_here(w, t, false);
  w.epochs.lock_all = false;
  return first;
}

}  // namespace ferry::rma
