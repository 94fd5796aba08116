#include "coll/shm/segment.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/op.h"
#include "base/process.h"
#include "coll/bcast/algorithms.h"
#include "coll/allreduce/algorithms.h"
#include "coll/collectives.h"
#include "coll/schedule.h"
#include "coll/shm/host.h"
#include "coll/shm/started.h"
#include "coll/shm/wait.h"
#include "common/config.h"
#include "common/debug.h"
#include "p2p/revoke.h"
#include "mpi.h"

namespace ferry::coll::shm {
namespace {

// Segments this process maps now, against FERRY_COLL_SHM_SEGMENTS: a
// program that makes thousands of communicators must not map thousands of
// segments (each n x (16 slots + 4 cells), in /dev/shm's memory until freed).
std::atomic<int64_t> mapped_{0};
// The segments whose flags defer_nothing left down (one thread: the
// deferral is only taken when the engine runs on one).
std::vector<CommSegment*> deferring_;

int64_t most_segments() {
  static const int64_t most = std::max<int64_t>(0, config::integer("FERRY_COLL_SHM_SEGMENTS"));
  return most;
}

// Takes one of the segments allowed, if one is left.
bool take_room() {
  int64_t n = mapped_.load(std::memory_order_relaxed);
  while (n < most_segments())
    if (mapped_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return true;
  return false;
}

using State = CommState;

// Whole cache lines, at least one.
size_t whole_lines(int64_t v) { return static_cast<size_t>(std::max<int64_t>(64, (v + 63) / 64 * 64)); }

// Where ranks share cores, a call above the cell goes by message schedules,
// each of whose waits may cost a context switch (the agreement's flag round
// before them is not what costs: with FERRY_COLL_SHM=off, no segment and no
// flag round, 4 ranks' bcast, gather, alltoall and reduce of 64-512 KiB took
// the same time): there 64 KiB cells, unless the user chose (4 ranks on 2
// cores, coll_sweep best of 3-4 at load 5, 16 / 64 KiB cells, us: bcast 32
// KiB 18 / 6.5, reduce 32-64 KiB 24-38 / 8-14, allgather 32 KiB 54 / 19,
// alltoall 8 KiB 29 / 7.3; 4-16 KiB the same). Where the host has at most
// kMostRanksForLargestCells ranks (the range measured), 128 KiB, which
// takes calls of up to 128 KiB off the schedules too (4 ranks, 64 / 128 KiB
// cells, us: alltoall 32 KiB 28-33 / 21-22, scatter 32 KiB 14-18 / 7,
// allgather, allreduce and reduce_scatter of 128 KiB 40-168 / 25-70, bcast
// 128 KiB 25-28 / 15-21; streams keep chunks of 64 KiB,
// CommSegment::chunk_bytes). Each rank's four cells take 256 or 512 KiB of
// a segment, reserved in /dev/shm and zeroed when made: so large cells only
// on hosts of at most kMostRanksForLargeCells ranks, a segment of at most
// ~2 MiB at 4 ranks and ~4 MiB at 16 (Docker's /dev/shm is 64 MiB by
// default; docs/performance.md, 2026-11-30 18:41 and 2026-12-01).
constexpr int64_t kCellWhereRanksShareCores = 64 << 10;
constexpr int64_t kLargestCellWhereRanksShareCores = 128 << 10;
constexpr int kMostRanksForLargestCells = 4;
constexpr int kMostRanksForLargeCells = 16;
}  // namespace

size_t configured_cell_bytes() {
  static const size_t bytes = whole_lines(config::integer("FERRY_COLL_SHM_CELL"));
  return bytes;
}

size_t cell_bytes_here() {
  static const size_t bytes = [] {
    const process::Facts& f = process::facts();
    if (config::is_set("FERRY_COLL_SHM_CELL") || f.host_ranks <= f.host_cores || f.host_ranks > kMostRanksForLargeCells)
      return configured_cell_bytes();
    return whole_lines(f.host_ranks <= kMostRanksForLargestCells ? kLargestCellWhereRanksShareCores
                                                                 : kCellWhereRanksShareCores);
  }();
  return bytes;
}

namespace {

// FERRY_COLL_SHM: on, off, or auto (the default): on unless this host's
// ranks outnumber its cores more than kMostRanksPerCore times. Where ranks
// share cores, a flag-and-cell call still beats messages: a waiting rank
// yields its core to the one it waits for, and one flag round replaces a
// message schedule's several (4 and 8 ranks on 2 cores, small calls:
// Scan 4-8 us -> 0.4, Allreduce 5-6 -> 1.8 at 4 ranks, 39-40 -> 10-11 at 8;
// docs/performance.md). Far beyond that, every collective's wake-ups map
// its members' segments and the waits sleep: at 1,024 ranks on 2 cores a
// start-up barrier took 29-33 s instead of 14. Ranks of one communicator
// from different jobs may answer differently: the creation's allreduce
// settles it (eligible(), segment.h).
constexpr int kMostRanksPerCore = 4;

// FERRY_COLL_SHM_AFTER: a segment costs a file in /dev/shm (shm_open and
// fallocate, ~40 us here), its mapping, a creation round (a bcast and an
// allreduce) and every member's first touches of its pages: 105-110 us at
// 2 ranks, 450-510 at 4 on 2 cores, then 10-30 us more in each of the next
// three calls. A communicator's first few collectives go by messages, so
// that one duplicated for a call or two never pays it (MPI_Comm_dup, one
// 4-byte allreduce, MPI_Comm_free: 140 -> 4.6 us at 2 ranks, 455 -> 32 at
// 4; Open MPI 10, MPICH 8.6 at 2). MPICH waits likewise
// (MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD, 5).
uint32_t calls_before_segment() {
  static const uint32_t after =
      static_cast<uint32_t>(std::clamp<int64_t>(config::integer("FERRY_COLL_SHM_AFTER"), 0, 1 << 30));
  return after;
}

}  // namespace

bool enabled() {
  static const bool on = [] {
    std::string v = config::value("FERRY_COLL_SHM");
    const process::Facts& f = process::facts();
    if (v == "auto") return f.host_ranks <= kMostRanksPerCore * f.host_cores;
    return config::flag("FERRY_COLL_SHM");
  }();
  return on;
}

namespace {

State* state_of(Communicator* c) {
  if (!c->coll_state) {
    auto s = std::make_shared<State>();
    // Under MPI_THREAD_MULTIPLE too: threads may run collectives on
    // different communicators at once (each has its own segment, numbering
    // and State; on one communicator the program must order its threads'
    // collective calls, MPI-3.1 §12.4.2), and their waits share the engine
    // as host.cc's Recheck explains.
    bool all_here = !c->inter && c->size >= 2 && !c->has_fixed_collective_tag() && installed();
    for (int r = 0; all_here && r < c->size; ++r) all_here = shares_memory(c->world_rank(r));
    s->status = all_here ? State::Status::kEligible : State::Status::kIneligible;
    c->coll_state = s;
  }
  return static_cast<State*>(c->coll_state.get());
}

// What a segment's maker tells the others: its name, and the cell size it
// laid the segment out for, which they take. Ranks of one communicator may
// come from different jobs on the host (spawned, connected) and so count
// different ranks per core (cell_bytes_here).
struct Announcement {
  char name[56] = {};
  uint64_t cell_bytes = 0;
  uint64_t ranks_share_cores = 0;  // the maker's host runs more of its job's ranks than it has cores
  uint64_t ring = 0;               // slots per rank (segment.h Sizes)
};

bool ranks_share_cores_here() {
  const process::Facts& f = process::facts();
  return f.host_ranks > f.host_cores;
}

uint64_t ring_here() {
  return ranks_share_cores_here() ? CommSegment::kRingWhereRanksShareCores : CommSegment::kRing;
}

std::string segment_name() {
  static std::atomic<unsigned> counter{0};
  char name[64];
  std::snprintf(name, sizeof name, "/ferry-coll-%d-%u", static_cast<int>(getpid()), counter++);
  return name;
}

}  // namespace

bool eligible(Communicator* c) {
  State* s = state_of(c);
  return s->status == State::Status::kEligible || s->status == State::Status::kReady;
}

// The flags of deferred_ (defer_nothing): `left` at once (this rank reads
// nothing of it: a writer of a later operation may reuse the slots), and
// `arrived` as far as it may go, or all the way when `now`. An arrival at t
// lets the others record in their slot of t (and a reader relies on a
// writer's arrival for that), so it waits until every rank has left
// t - ring(): `arrived` goes up step by step to the least `left` + ring().
// All at once it would wait for ranks that themselves wait on this
// arrival: an erroneous program (data against no data) would hang instead
// of failing. Never lowers a flag that a later operation raised further.
// True when both are up.
bool CommSegment::raise_deferred(bool now) {
  const uint64_t s = deferred_;
  FlagLine& mine = lines_[me_];
  bool raised = false;
  if (mine.left.load(std::memory_order_relaxed) < s) {
    mine.left.store(s, std::memory_order_release);
    raised = true;
  }
  uint64_t reach = s;
  if (!now && s > ring_) {
    uint64_t least = UINT64_MAX;
    for (int r = 0; r < n_; ++r) least = std::min(least, lines_[r].left.load(std::memory_order_acquire));
    reach = std::min(s, least + ring_);
  }
  if (mine.arrived.load(std::memory_order_relaxed) < reach) {
    mine.arrived.store(reach, std::memory_order_release);
    raised = true;
  }
  if (reach == s) deferred_ = 0;
  if (raised) wake_others();
  return reach == s;
}

void CommSegment::defer_slowly() {
  // Other threads poll the engine, which leaves the flags alone
  // (raise_all_deferred), and deferring_ is this thread's: up at once.
  if (progress::threads_enabled) {
    (void)raise_deferred(true);
    return;
  }
  deferring_.push_back(this);
  listed_ = true;
}

void raise_all_deferred() {
  // Once other threads poll the engine (an RMA doorbell or I/O thread, a
  // thread level raised later), the owner's own calls (next(), the
  // destructor) raise what it deferred before: they touch these segments
  // without the engine lock.
  if (deferring_.empty() || progress::threads_enabled) [[likely]] return;
  size_t kept = 0;
  for (CommSegment* seg : deferring_) {
    if (seg->deferred_ != 0 && !seg->raise_deferred(false)) deferring_[kept++] = seg;
    else seg->listed_ = false;
  }
  deferring_.resize(kept);
}

void CommSegment::wake_others() { bells_.wake(others_.data(), others_.size()); }

Err CommSegment::wait(const std::atomic<uint64_t>& word, uint64_t target) const {
  if (wait_at_least(word, target, context_)) [[likely]] return {};
  return p2p::revoke::refusal();
}

Err CommSegment::wait_left(uint64_t target) {
  uint64_t least = UINT64_MAX;
  for (int r = 0; r < n_; ++r) {
    if (Err e = wait(lines_[r].left, target)) return e;
    // Acquire: a later call writes its slot on this value alone, after
    // the reader's release of `left` (first_not_left's fast path).
    least = std::min(least, lines_[r].left.load(std::memory_order_acquire));
  }
  left_seen_ = least;
  return {};
}

const std::atomic<uint64_t>* CommSegment::first_not_left(uint64_t target) {
  if (left_seen_ >= target) return nullptr;
  uint64_t least = UINT64_MAX;
  for (int r = 0; r < n_; ++r) {
    const uint64_t left = lines_[r].left.load(std::memory_order_acquire);
    if (left < target) return &lines_[r].left;
    least = std::min(least, left);
  }
  left_seen_ = least;
  return nullptr;
}

void CommSegment::publish(uint64_t s) {
  lines_[me_].arrived.store(s, std::memory_order_release);
  if (s >= deferred_) deferred_ = 0;  // covered (defer_nothing)
  wake_others();
}

void CommSegment::leave(uint64_t s) {
  lines_[me_].left.store(s, std::memory_order_release);
  wake_others();
}

void CommSegment::publish_and_leave(uint64_t s) {
  lines_[me_].arrived.store(s, std::memory_order_release);
  lines_[me_].left.store(s, std::memory_order_release);
  if (s >= deferred_) deferred_ = 0;  // covered (defer_nothing)
  wake_others();
}

void CommSegment::count_chunks(uint64_t s, uint64_t chunks) {
  chunk_word(me_, s).store(s * kChunkBase + chunks, std::memory_order_release);
  wake_others();
}

Err CommSegment::wait_chunks(int r, uint64_t s, uint64_t chunks) const {
  if (wait_either(slot(r, s).recorded, 4 * s, lines_[r].left, s, context_) &&
      wait_either(chunk_word(r, s), s * kChunkBase + chunks, lines_[r].left, s, context_)) [[likely]]
    return {};
  return p2p::revoke::refusal();
}

Err CommSegment::wait_arrived_slowly(int r, uint64_t s, const char* lines, size_t len) const {
  // While the writer is still on its way, loading its data lines at each
  // look keeps them coming with its record (wait_arrived's prefetch); not
  // where ranks share cores (wait.h spins only where each has one).
  if (lines != nullptr && progress::wait_policy() != progress::WaitPolicy::kBlock) {
    for (int i = 0; i < kSpins; ++i) {
      cpu_relax();
      prefetch_lines(lines, len);
      if (arrived(r, s)) return {};
    }
  }
  if (wait_either(slot(r, s).recorded, 4 * s + 2, lines_[r].arrived, s, context_)) return {};
  return p2p::revoke::refusal();
}

Err CommSegment::wait_recorded_or_arrived(int r, uint64_t s) const {
  if (wait_either(slot(r, s).recorded, 4 * s, lines_[r].arrived, s, context_)) [[likely]] return {};
  return p2p::revoke::refusal();
}

namespace {

// The segment's bytes for n ranks (segment.h's layout).
size_t segment_bytes(int n, size_t cell_bytes, uint64_t ring) {
  return static_cast<size_t>(n) *
         (sizeof(FlagLine) + ring * CommSegment::kSlotBytes + CommSegment::kCells * cell_bytes);
}

}  // namespace

void CommSegment::map_layout() {
  const size_t lines = static_cast<size_t>(n_) * sizeof(FlagLine);
  lines_ = reinterpret_cast<FlagLine*>(memory_.data());
  slots_ = memory_.data() + lines;
  cells_ = slots_ + static_cast<size_t>(n_) * ring_ * kSlotBytes;
}

CommSegment* segment_for(Communicator* c, bool now) {
  State* st = state_of(c);
  if (st->status == State::Status::kReady) [[likely]] return &st->segment;
  if (st->status != State::Status::kEligible) return nullptr;
  if (!now && st->calls_before < calls_before_segment()) {
    ++st->calls_before;
    return nullptr;
  }
  // While it is made, this communicator's collectives use messages. The
  // bcast and allreduce below are schedules of their own, as the host
  // segments' (segment_among): the program's calls, not these, are what
  // the collective counters, tool events and FERRY_DEBUG lines count.
  st->status = State::Status::kMaking;
  CommSegment& seg = st->segment;
  seg.n_ = c->size;
  seg.me_ = c->rank;
  seg.context_ = c->context;
  seg.cell_bytes_ = cell_bytes_here();
  seg.ring_ = ring_here();
  size_t bytes = segment_bytes(seg.n_, seg.cell_bytes_, seg.ring_);

  Announcement told;
  char* name = told.name;
  std::string error;
  // Every rank must have room; the allreduce below tells all of them if
  // one has not (the count differs between processes: each has its own
  // communicators). A rank with FERRY_COLL_SHM off still takes part, and
  // says so (eligible() says why); the least answer wins.
  enum Answer : int { kOff = 0, kCouldNot = 1, kMapped = 2 };
  const bool on = enabled();
  st->holds_room = on && take_room();
  if (on && !st->holds_room) error = "FERRY_COLL_SHM_SEGMENTS segments are mapped already";
  if (c->rank == 0 && st->holds_room) {
    std::string made = segment_name();
    if (seg.memory_.create(made, bytes, &error) && seg.memory_.back(0, bytes, &error)) {
      seg.memory_.done_backing();
      std::snprintf(told.name, sizeof told.name, "%s", made.c_str());
      told.cell_bytes = seg.cell_bytes_;
      told.ranks_share_cores = ranks_share_cores_here();
      told.ring = seg.ring_;
    }
  }
  Schedule tell(c);
  bcast_binomial(tell, &told, sizeof told, find_datatype(MPI_BYTE), 0);
  Err e = tell.run();
  int mine = !on ? kOff : !e && name[0] != 0 && st->holds_room ? kMapped : kCouldNot;
  if (mine == kMapped && c->rank != 0) {
    seg.cell_bytes_ = static_cast<size_t>(told.cell_bytes);
    seg.ring_ = told.ring;
    bytes = segment_bytes(seg.n_, seg.cell_bytes_, seg.ring_);
    if (!seg.memory_.attach(name, bytes, &error)) mine = kCouldNot;
  }
  seg.ranks_share_cores_ = told.ranks_share_cores != 0;
  int all = kOff;
  {
    Schedule agree(c);
    allreduce_recursive_doubling(agree, &mine, &all, 1, find_datatype(MPI_INT), find_op(MPI_MIN));
    if (Err a = agree.run(); a && !e) e = std::move(a);
  }
  if (c->rank == 0) seg.memory_.unlink();
  if (e || all != kMapped) {
    if (debug::on(debug::kColl))
      debug::print("no shared-memory collectives on this communicator: %s",
                   e                        ? e.message().c_str()
                   : all == kOff            ? "FERRY_COLL_SHM is off on a rank"
                   : !error.empty()         ? error.c_str()
                                            : "a rank could not map the segment, or has FERRY_COLL_SHM_SEGMENTS mapped");
    seg.memory_ = transport::shm::Segment();
    if (st->holds_room) mapped_.fetch_sub(1, std::memory_order_relaxed);
    st->holds_room = false;
    st->status = State::Status::kIneligible;
    return nullptr;
  }
  seg.map_layout();
  for (int r = 0; r < c->size; ++r)
    if (r != c->rank) seg.others_.push_back(c->world_rank(r));
  st->status = State::Status::kReady;
  if (debug::on(debug::kColl))
    debug::print("shared-memory collective segment: %d ranks, %zu bytes (%s)", seg.n_, bytes, name);
  return &seg;
}

CommState::~CommState() {
  if (holds_room) mapped_.fetch_sub(1, std::memory_order_relaxed);
}

CommSegment::~CommSegment() {
  // Still mapped here: the others see its last flags before it goes.
  if (deferred_ != 0) (void)raise_deferred(true);
  if (listed_) std::erase(deferring_, this);
  if (started_ != nullptr) forget(this);
  if (holds_room_) mapped_.fetch_sub(1, std::memory_order_relaxed);
}

std::shared_ptr<void>& hierarchy_slot(Communicator* c) { return state_of(c)->hierarchy; }
std::shared_ptr<void>& onepass_slot(Communicator* c) { return state_of(c)->onepass; }

bool segment_among(Communicator* c, const std::vector<int>& members, int my_index,
                   std::unique_ptr<CommSegment>* out) {
  auto seg = std::make_unique<CommSegment>();
  const int n = static_cast<int>(members.size());
  seg->n_ = n;
  seg->me_ = my_index;
  seg->context_ = c->context;
  seg->cell_bytes_ = cell_bytes_here();
  seg->ring_ = ring_here();
  size_t bytes = segment_bytes(n, seg->cell_bytes_, seg->ring_);

  // Phase 1: the host's first member makes the segment and tells the
  // others its name and cell size (a binomial bcast among the members, on
  // c's collective context with one tag that every rank of c takes).
  Announcement told;
  char* name = told.name;
  std::string error;
  int ok = 1;
  if (n > 1) {
    ok = enabled() && installed();
    if (!ok) error = "FERRY_COLL_SHM is off on this host";
    if (ok) seg->holds_room_ = take_room();
    if (ok && !seg->holds_room_) {
      ok = 0;
      error = "FERRY_COLL_SHM_SEGMENTS segments are mapped already";
    }
    if (ok && my_index == 0) {
      std::string made = segment_name();
      if (seg->memory_.create(made, bytes, &error) && seg->memory_.back(0, bytes, &error)) {
        seg->memory_.done_backing();
        std::snprintf(told.name, sizeof told.name, "%s", made.c_str());
        told.cell_bytes = seg->cell_bytes_;
        told.ranks_share_cores = ranks_share_cores_here();
        told.ring = seg->ring_;
      }
    }
  }
  Schedule tell(c, members, my_index);
  if (n > 1) bcast_binomial(tell, &told, sizeof told, find_datatype(MPI_BYTE), 0);
  Err e = tell.run();
  if (n > 1) {
    ok = ok && !e && name[0] != 0;
    if (ok && my_index != 0) {
      seg->cell_bytes_ = static_cast<size_t>(told.cell_bytes);
      seg->ring_ = told.ring;
      bytes = segment_bytes(n, seg->cell_bytes_, seg->ring_);
      ok = seg->memory_.attach(name, bytes, &error);
    }
    seg->ranks_share_cores_ = told.ranks_share_cores != 0;
  }
  // Phase 2: every host's members agree, over all of c.
  int all = 0;
  {
    Schedule agree(c);
    allreduce_recursive_doubling(agree, &ok, &all, 1, find_datatype(MPI_INT), find_op(MPI_MIN));
    Err a = agree.run();
    if (a) all = 0;
  }
  if (n > 1 && my_index == 0) seg->memory_.unlink();
  if (all == 0) {
    if (debug::on(debug::kColl))
      debug::print("no host segment for hierarchical collectives: %s",
                   e ? e.message().c_str() : error.empty() ? "a rank of another host could not map its segment"
                                                           : error.c_str());
    return false;
  }
  if (n == 1) return true;
  seg->map_layout();
  for (int i = 0; i < n; ++i)
    if (i != my_index) seg->others_.push_back(c->world_rank(members[static_cast<size_t>(i)]));
  if (debug::on(debug::kColl))
    debug::print("host collective segment: %d of %d ranks, %zu bytes (%s)", n, c->size, bytes, name);
  *out = std::move(seg);
  return true;
}

}  // namespace ferry::coll::shm
