#include "profile/companions.h"

#include <atomic>
#include <memory>

#include "base/communicator.h"
#include "base/request.h"
#include "coll/barrier/algorithms.h"
#include "coll/inter/algorithms.h"
#include "coll/schedule.h"
#include "progress/progress.h"
#include "progress/tasks.h"

namespace ferry::profile::companions {
namespace {

// Above the communicator's own collective tags (Communicator::next_collective_tag: 30 bits).
constexpr int kNonblockingTagBase = 0x40000000;
constexpr uint32_t kSequenceMask = 0x1fffffff;
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

// Starts a barrier on a shadow of `c` with tags `tag` (and `local_tag` for an intercommunicator's
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

// Collective request -> its companion (nullptr: MPI_Ibarrier, its own), in the order started.
struct Entry {
  MPI_Request handle;
  Request* collective;
  Companion* companion;
  uint32_t weight;  // the calls it stands for (weight_of)
};
Entry table[kMaxCompanions];
int entries = 0;

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
  for (int i = 0; i < entries;) {
    if (!retired(table[i], handle)) {
      ++i;
      continue;
    }
    detach(table[i].companion);
    table[i] = table[--entries];
  }
}

void remember(MPI_Request handle, Companion* k, uint32_t weight) {
  progress::Lock lock;
  sweep(handle);
  Request* r = requests::find(handle);
  if (r == nullptr || entries == kMaxCompanions) return detach(k);  // not measured
  table[entries++] = {handle, r, k, weight};
}

// A call not sampled: no entry of an earlier request with its handle (a slot used again, or a
// persistent request started again) may stand for it. The table is empty but for a short while
// after each sampled call, so this mostly looks at one int.
void not_sampled(MPI_Request handle) {
  if (std::atomic_ref<int>(entries).load(std::memory_order_relaxed) == 0) return;
  progress::Lock lock;
  sweep(handle);
}

const Entry* find(const Request* r) {
  for (int i = 0; i < entries; ++i)
    if (table[i].collective == r) return &table[i];
  return nullptr;
}

}  // namespace

Ticket sequence_before(MPI_Comm comm) {
  Communicator* c = communicators::find(comm);
  if (c == nullptr) return {};
  uint32_t weight = weight_of(c->profiled_nonblocking++, c->profiled_next_sample, c->context);
  if (weight == 0) {
    // No entry of an earlier request may stand for this call's: any whose request is retired goes
    // now (a live request's handle is not the one this call gets).
    not_sampled(MPI_REQUEST_NULL);
    return {};
  }
  // An intercommunicator always has its local group (runtime/intercomm.cc make_inter is given it;
  // coll::Schedule and start_barrier use it unchecked).
  uint64_t local = c->inter ? c->local->collective_sequence : 0;
  return {local << 32 | c->collective_sequence, weight};
}

void started(MPI_Comm comm, Ticket ticket, MPI_Request request, bool barrier) {
  if (barrier) return remember(request, nullptr, 1);
  Communicator* c = communicators::find(comm);
  if (c == nullptr) return;
  int tag = kNonblockingTagBase | int(uint32_t(ticket.sequence) & kSequenceMask);
  int local_tag = kNonblockingTagBase | int(uint32_t(ticket.sequence >> 32) & kSequenceMask);
  Companion* k = start_barrier(c, tag, local_tag);
  if (k != nullptr) return remember(request, k, ticket.weight);
  progress::Lock lock;
  sweep(request);  // not measured: no stale entry for its handle either
}

void started_persistent(MPI_Request request, Request* r) {
  if (r == nullptr || r->kind != Request::Kind::kCollective || !r->persistent || r->restartable == nullptr ||
      r->comm == nullptr)
    return;
  uint32_t weight = weight_of(r->profiled_starts++, r->profiled_next_sample, r->comm->context);
  if (weight == 0) return not_sampled(request);
  Companion* k = start_barrier(r->comm, kPersistentTag, kPersistentTag);
  if (k != nullptr) return remember(request, k, weight);
  progress::Lock lock;
  sweep(request);
}

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
    for (int i = 0; i < entries; ++i) {
      if (table[i].companion == nullptr) continue;
      if (!table[i].companion->request->complete) return progress::now_us() > deadline;
      ++in_table;
    }
    return alive == in_table || progress::now_us() > deadline;  // the detached ones are done too
  });
  for (int i = 0; i < entries; ++i) detach(table[i].companion);
  entries = 0;
}

}  // namespace ferry::profile::companions
