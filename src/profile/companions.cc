#include "profile/companions.h"

#include <atomic>
#include <memory>

#include "base/communicator.h"
#include "base/request.h"
#include "coll/barrier/algorithms.h"
#include "coll/inter/algorithms.h"
#include "coll/schedule.h"
#include "profile/clock.h"
#include "progress/progress.h"
#include "progress/tasks.h"

namespace ferry::profile::companions {
namespace {

// Above the communicator's own collective tags (Communicator::next_collective_tag: 30 bits): a
// nonblocking collective's companion by its count on the communicator, a persistent one's all one.
constexpr int kNonblockingTagBase = 0x40000000;
constexpr uint32_t kCountMask = 0x1fffffff;
constexpr int kPersistentTag = 0x7ffffffe;

// The murmur3 finalizer: a count's bits all mixed, so that the gaps between the calls sampled
// follow no period a program could have (count % N would line up with one late every N-th call).
uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

// How many calls the call numbered `count` (from 0) on its communicator or request stands for
// (`next`: the count of the next one measured): 1 in the warmup, kSampleOneIn for one sampled
// after it, 0 when it is not measured. After a measured call past the warmup, the next is 1 to
// 2 kSampleOneIn - 1 calls later (kSampleOneIn on average), by a hash of its count that every rank
// computes alike: a compare per call, as counters.h's countdown of timed calls.
uint32_t weight_of(uint32_t count, uint32_t& next, uint32_t salt) {
  if (count != next) [[likely]] return 0;
  if (count < kWarmup) {
    next = count + 1;
    return 1;
  }
  next = count + 1 + mix(count ^ salt) % (2 * kSampleOneIn - 1);
  return kSampleOneIn;
}

// A companion barrier: the communicator copy it runs on (the schedule points at it, so it lives
// as long as the barrier) and its request.
struct Companion {
  Communicator via;
  Communicator via_local;  // an intercommunicator's local group, for the barrier's local steps
  Request* request = nullptr;
};

// Companions alive, in the table or detached: what finish() waits for.
int alive = 0;

void destroy(Companion* k) {
  requests::release(k->request);
  delete k;
  --alive;
}

// A companion whose collective was retired before it completed: the engine advances it with the
// other tasks, and it frees itself once complete (its barrier's own task completes it).
class Detached final : public progress::Task {
 public:
  explicit Detached(Companion* k) : k_(k) {}
  bool advance() override {
    if (!k_->request->complete) return false;
    destroy(k_);
    return true;
  }

 private:
  Companion* k_;
};

void detach(Companion* k) {  // engine lock held
  if (k == nullptr) return;
  if (k->request->complete) return destroy(k);
  progress::start(std::make_unique<Detached>(k));
}

// Starts a barrier on a copy of `c` with tags `tag` (and `local_tag` for an intercommunicator's
// local group); nullptr if it could not start (its error is the profile's, not the program's).
Companion* start_barrier(Communicator* c, int tag, int local_tag) {
  auto k = std::make_unique<Companion>();
  communicators::shadow(*c, tag, local_tag, &k->via, &k->via_local);
  // The barrier's schedule itself, without the selection (a choice the report would count, and a
  // look at shared memory that a fixed tag rules out anyway): dissemination, or the
  // intercommunicator's (coll/inter/barrier.cc).
  auto schedule = std::make_unique<coll::Schedule>(&k->via);
  if (c->inter)
    coll::inter_barrier(*schedule);
  else
    coll::barrier_dissemination(*schedule);
  Err e;
  k->request = coll::start_nonblocking(std::move(schedule), &e);
  if (!e.ok() || k->request == nullptr) {
    if (k->request != nullptr) {
      progress::Lock lock;
      progress::wait_until(lock, [&k] { return k->request->complete; });
      requests::release(k->request);
    }
    return nullptr;
  }
  progress::Lock lock;
  ++alive;
  return k.release();
}

// Collective request -> its companion, in the order started. Written with the engine lock held;
// `entries` is also read without it (whether there is anything to retire: the inline fast paths
// of companions.h, not_sampled), so its writes are atomic too: relaxed, a plain store on x86 (the
// lock orders the rest).
struct Entry {
  MPI_Request handle;
  Request* collective;
  Companion* companion;  // nullptr: MPI_Ibarrier, its own
  uint32_t weight;       // the calls it stands for (weight_of)
};
Entry table[kMaxCompanions];

void set_entries(int n) { std::atomic_ref<int>(detail::entries).store(n, std::memory_order_relaxed); }

// Whether entry `e`'s request was retired (completed and freed, freed, or inactive again), or
// another entry for `handle` replaces it. A slot freed and taken again by another collective of
// the runtime's own (MPI_Comm_idup) looks alive until that one is retired: its wait then ends at
// the stale companion, at worst 0.
bool retired(const Entry& e, MPI_Request handle) {
  return e.handle == handle || requests::find(e.handle) != e.collective ||
         e.collective->kind != Request::Kind::kCollective || !e.collective->active;
}

// Drops the entries retired (and any for `handle`), detaching their companions. Engine lock held.
void sweep(MPI_Request handle) {
  int n = detail::entries;
  for (int i = 0; i < n;) {
    if (!retired(table[i], handle)) {
      ++i;
      continue;
    }
    detach(table[i].companion);
    table[i] = table[--n];
  }
  set_entries(n);
}

// Records sampled collective `r` (its handle's stale entries dropped first) and its companion `k`
// (nullptr: MPI_Ibarrier's, its own; or one that did not start); a companion that cannot be
// recorded (none, or the table full: not measured) is detached.
void remember(Request* r, Companion* k, uint32_t weight, bool own = false) {
  progress::Lock lock;
  sweep(r->handle);
  if ((k == nullptr && !own) || detail::entries == kMaxCompanions) return detach(k);
  table[detail::entries] = {r->handle, r, k, weight};
  set_entries(detail::entries + 1);
}

// A call not sampled: no entry of an earlier request with its handle (a slot used again, or a
// persistent request started again) may stand for it. The table is empty but for a short while
// after each sampled call, so this mostly looks at one int.
void not_sampled(MPI_Request handle) {
  if (detail::table_empty()) return;
  progress::Lock lock;
  sweep(handle);
}

const Entry* find(const Request* r) {
  for (int i = 0; i < detail::entries; ++i)
    if (table[i].collective == r) return &table[i];
  return nullptr;
}

}  // namespace

namespace detail {
bool watching = false;
int entries = 0;
uint64_t spent_ticks = 0;  // own_ticks: written with relaxed atomic adds

// Out of line (noinline: LTO would inline them into the callers' common path, with their frames).
__attribute__((noinline)) void barrier_started(Request* r) {
  if (r != nullptr) remember(r, nullptr, 1, /*own=*/true);
}

__attribute__((noinline)) void nonblocking_sampled(Communicator* c, Request* r, uint32_t count) {
  uint32_t weight = weight_of(count, c->profiled_next_sample, c->context);
  if (r == nullptr) return;  // counted as every rank counts it; nothing of it to measure
  if (weight == 0) return not_sampled(r->handle);
  uint64_t start = clock::ticks();
  int tag = kNonblockingTagBase | int(count & kCountMask);
  remember(r, start_barrier(c, tag, tag), weight);
  std::atomic_ref<uint64_t>(spent_ticks).fetch_add(clock::ticks() - start, std::memory_order_relaxed);
}

__attribute__((noinline)) void started_persistent(MPI_Request request, Request* r, uint32_t count) {
  if (!r->persistent || r->restartable == nullptr || r->comm == nullptr) return;
  uint32_t weight = weight_of(count, r->profiled_next_sample, r->comm->context);
  if (weight == 0) return not_sampled(request);
  remember(r, start_barrier(r->comm, kPersistentTag, kPersistentTag), weight);
}

}  // namespace detail

void watch() { detail::watching = true; }

uint32_t weight(const Request* r) {
  const Entry* e = find(r);
  return e != nullptr ? e->weight : 0;
}

bool partners_there(const Request* r) {
  if (r->complete) return true;
  const Entry* e = find(r);
  return e == nullptr || (e->companion != nullptr && e->companion->request->complete);
}

void finish() {
  progress::Lock lock;
  sweep(MPI_REQUEST_NULL);
  long long deadline = progress::now_us() + kFinalizeWaitMs * 1000LL;
  // The table's pending companions and the detached ones: each completes once every rank has
  // started its own, which every rank did before its MPI_Finalize.
  progress::wait_until(lock, [deadline] {
    int in_table = 0;
    for (int i = 0; i < detail::entries; ++i) {
      if (table[i].companion == nullptr) continue;
      if (!table[i].companion->request->complete) return progress::now_us() > deadline;
      ++in_table;
    }
    return alive == in_table || progress::now_us() > deadline;  // the detached ones are done too
  });
  for (int i = 0; i < detail::entries; ++i) detach(table[i].companion);
  set_entries(0);
}

}  // namespace ferry::profile::companions
