// A communicator's shared-memory collective segment (coll/shm), made at
// its blocking collective after the first FERRY_COLL_SHM_AFTER (4) ones,
// whatever the call's size (coll/choose.cc, segment_if_possible; Creation
// below).
//
// Layout, for the communicator's n ranks (all on this host):
//   n flag lines, one 64-byte line per rank, written only by that rank:
//     arrived: the last operation whose input this rank has written
//     left:    the last operation this rank has finished (read what it
//              needed from the others' cells)
//   n x ring() slots of kSlotBytes, rank r's slot k at (r * ring() + k),
//   written only by rank r: a header (what r passed to operation s, for
//   s % ring() == k) and the data of an operation whose cell content fits:
//   after the header in its cache line up to kSlotInline (48) bytes, so
//   that a reader of small data takes one line; else from the next line
//   on, up to kSlotData (1 KiB), in whole lines that a string copy writes
//   without reading them first (cells.h)
//   n x kCells cells of cell_bytes, rank r's cell k at (r * kCells + k),
//   written only by rank r: the data that does not fit a slot (a bcast,
//   gather, reduce or scan beyond a cell streams through all four of each
//   writer's cells, bcast.cc, gather.cc, reduce_stream.cc, scan_stream.cc).
//
// Operations are numbered 1, 2, ... in call order, the same on every rank
// (MPI-3.1 §5.12: collectives are called in the same order). Operation s
// records in slot s % ring() (Sizes below), and puts its data there if it
// fits, else in cell s % kCells. Before a rank writes its slot or cell for
// operation s it waits until every rank has left s - ring() (data in the
// slot) or s - kCells (in a cell), so that nobody still reads what it
// overwrites. A flag only grows, so every wait is "this flag has reached s"
// (wait.h).
//
// Small calls (issue 29): a writer stores its data and then its record in
// the slot, the record meaning "the data is here" (record_data), so that a
// reader's wait and data of up to 48 bytes are one cache line (longer data
// takes whole lines after it, cells.h, which a reader loads with the
// record, wait_arrived), and readers never touch
// the writer's flag line. A writer remembers the least `left` it last saw
// (left_seen_) and reads the others' flag lines only when that is short of
// what it needs, about once in ring() - 1 calls in a stream of small rooted
// calls: the root runs up to ring() - 1 operations ahead of its slowest
// reader, and the readers' `left` lines stay in their own caches meanwhile
// (with two cells the root read them at every call). Open MPI's coll/sm
// has 8 segments of 8 KiB acknowledged two groups at a time; MPICH's
// release_gather a 32 KiB bcast buffer in cells: the same idea.
//
// Sizes (issue 29): a slot is 17 cache lines, so that 1 KiB of data fits
// one beside its header's line (a 1 KiB bcast, gather or scatter on 2
// ranks took a cell with 16 lines); four cells, so that the root of calls of 1-16 KiB
// runs up to three ahead of its slowest reader instead of one (with two,
// 2-rank bcast, gather and scatter of 1-8 KiB waited for the reader's
// `left` at every call and ran 1.2-1.8x behind MPICH, whose bcast buffer
// holds 32 KiB). Sixteen slots where every rank has a core; 128 where
// ranks outnumber the cores (the maker's view, as ranks_share_cores()), so
// that a root of small calls, or a scan's first rank, runs 127 calls ahead
// and a rank that waits hands its core over once per many calls instead of
// once per 15: on 4 ranks and 2 cores, 8-byte Bcast 1.3-2.6 -> 0.5-1.8 us,
// Scatter 1.0-1.8 -> 0.3-0.6, Scan 1.3-1.5 -> 0.5-0.8 (Open MPI 0.5-1.3,
// 0.5-0.7, 0.5-2.1; docs/performance.md, 2026-12-02). Not where each rank
// has a core: there 2-rank Gather of 8 B took 0.4-0.5 us with 128 slots
// against 0.16 with 16.
//
// Memory: n x (64 + ring() x kSlotBytes + kCells x cell_bytes) bytes per
// communicator and host, FERRY_COLL_SHM_CELL bytes per cell (default
// 16 KiB: 2 ranks 162 KiB, 8 ranks 648 KiB; where up to 16 ranks outnumber
// the cores, cell_bytes_here, 128 KiB up to 4 ranks, 64 KiB beyond: 4
// ranks 2.6 MiB, 16 ranks 6.1 MiB with 128 slots), made only for
// communicators that use collectives, and at most
// FERRY_COLL_SHM_SEGMENTS (64) mapped by a process at once: the
// communicators beyond it use messages (every rank of the communicator
// learns it alike in the creation's allreduce).
//
// Creation (blocking, collective), at the communicator's blocking
// collective after the first FERRY_COLL_SHM_AFTER (4) ones, which go by
// messages: a communicator made, used once or twice and freed (libraries,
// comm_threads) never pays for a segment. Rank 0 creates and sizes a named
// segment, broadcasts its name, every rank maps it, an allreduce agrees
// that all did and that FERRY_COLL_SHM is on for every one of them (else
// nobody uses it and the communicator keeps the message-based algorithms),
// and rank 0 removes the name: nothing outlives the job in /dev/shm. Both steps use the message-based algorithms (the
// segment is not ready yet). Freed with the communicator (unmapped, its
// room under the cap given back) at MPI_Comm_free, once no request refers
// to it.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/communicator.h"
#include "base/error.h"
#include "coll/shm/host.h"
#include "progress/progress.h"
#include "transport/shm/segment.h"

namespace ferry::coll::shm {

struct StartedQueue;  // started.cc

struct alignas(64) FlagLine {
  std::atomic<uint64_t> arrived;
  std::atomic<uint64_t> left;
};

// A slot's header: what its rank passed to operation s (agreement.h): its
// bytes, and `recorded` = 4s + (2 if its data is in place: a writer's
// record) + (1 if it runs the operation by message). Written after the
// rank's data (release), always once every rank has left s - ring(), so
// that nobody still reads what operation s - ring() recorded there.
struct SlotHeader {
  std::atomic<uint64_t> recorded;
  std::atomic<uint64_t> bytes;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "flags are shared between processes");

class CommSegment {
 public:
  static constexpr uint64_t kRing = 16;
  static constexpr uint64_t kRingWhereRanksShareCores = 128;
  static_assert(std::has_single_bit(kRing) && std::has_single_bit(kRingWhereRanksShareCores), "slot(): s & (ring - 1)");
  static constexpr uint64_t kCells = 4;
  static constexpr size_t kSlotBytes = 1088;
  static constexpr size_t kSlotInline = 64 - sizeof(SlotHeader);
  static constexpr size_t kSlotData = kSlotBytes - 64;

  int size() const { return n_; }
  int rank() const { return me_; }
  size_t cell_bytes() const { return cell_bytes_; }
  // A stream's chunk (stream.h): a cell, but at most kMostChunkBytes, so
  // that data beyond a larger cell still moves in pieces that let readers
  // start early (4 ranks on 2 cores, 128 KiB chunks against 64: Exscan 1-4
  // MiB 1.2-1.6x slower, Scan 256 KiB-2 MiB 1.1x; docs/performance.md).
  static constexpr size_t kMostChunkBytes = 64 * 1024;
  size_t chunk_bytes() const { return cell_bytes_ < kMostChunkBytes ? cell_bytes_ : kMostChunkBytes; }
  // Whether the segment's maker found more of its job's ranks on the host
  // than cores (the same answer on every rank, unlike each rank's own
  // process::facts() where ranks of several jobs meet): the collectives
  // that choose by it choose alike (bcast_streams, algorithms.h).
  bool ranks_share_cores() const { return ranks_share_cores_; }
  // Slots per rank: kRing, or kRingWhereRanksShareCores where the maker
  // found ranks outnumbering cores (a power of two, told with the name).
  uint64_t ring() const { return ring_; }
  // The next operation's number (every rank calls this once per operation).
  // Raises the flags that defer_nothing left down first, `left` at least: a
  // writer of this operation may wait for it (wait_cell_free).
  uint64_t next() {
    if (deferred_ != 0) [[unlikely]] (void)raise_deferred(false);
    return ++sequence_;
  }

  // A blocking call with no data (coll/at_once.h): the one way a rank
  // takes part in such an operation, with nothing to move, on the segment
  // (agreement.h says what a flag without a record means to the others).
  // It takes the operation's number s and only notes that its flags
  // (arrived, left) are still to be raised. In a correct program nobody
  // waits on them (every rank passed no data at s), but a writer of a later
  // operation waits for `left` to reuse the slots: it goes up at this
  // rank's next operation on the segment (next()). Its `arrived` goes up
  // there too, or is covered by a later one (flags only grow; a flag of s
  // without a record of s means 0 bytes to whoever reads it), but only as
  // far as every rank has left t - ring() for it: an arrival at t lets
  // readers of t record in their slot of t (as a writer's does after
  // wait_cell_free); sooner, their record could overwrite one that a slower
  // rank still reads (raise_deferred). In an erroneous program, where a
  // rank with data at s waits on this one, both go up at this rank's passes
  // of the progress engine too (raise_all_deferred: any wait, test or
  // blocking call), or when the segment goes; the rank that waits then
  // fails instead of waiting for ever. In a loop of calls with no data it
  // costs an increment and a store: no store to shared memory, no wake-up
  // (issue 29). Call it with no started operation pending (settle(),
  // started.h: theirs would publish after it). Where other threads poll the
  // engine (progress::threads_enabled), which then leaves the flags alone,
  // both go up at once, all the way: a rank of an erroneous program that
  // waits on them fails, possibly on a record that a slower rank still reads
  // (a mismatch where there is one anyway), but never waits for ever.
  void defer_nothing() {
    deferred_ = ++sequence_;
    if (!listed_ || progress::threads_enabled) [[unlikely]] defer_slowly();
  }
  // defer_nothing where it is the increment alone (the segment listed
  // already, no other thread polling) and nothing started on the segment
  // is pending (settle() would wait for it): true when done. A call with no
  // data takes this inline (coll/at_once.h, defer_no_data: no function
  // call on its way, issue 29); false: nothing done.
  __attribute__((always_inline)) bool defer_nothing_at_once() {
    if (!listed_ || progress::threads_enabled || outstanding() != 0) [[unlikely]]
      return false;
    deferred_ = ++sequence_;
    return true;
  }

  // A bcast, gather, reduce or scan larger than a cell (bcast.cc,
  // gather.cc, reduce_stream.cc, scan_stream.cc) streams
  // through all kCells of each writer's cells within its one operation s,
  // chunk j in cell j % kCells: a writer counts the chunks it has put in
  // place, and a reader the chunks (a gather's or reduce's root: the
  // rounds; a scan's rank: the chunks of its own it has combined) it has
  // taken, in its slot's first word after the header (no data is in the
  // slots then), as s * kChunkBase + chunks, so
  // that the word only grows like every flag. Each count wakes the others.
  // The word holds an older operation's data until its rank sets it to no
  // chunks (start_chunks), before its record of s (release) that makes it
  // valid to whoever has seen the record.
  static constexpr uint64_t kChunkBase = uint64_t{1} << 24;
  void start_chunks(uint64_t s) { chunk_word(me_, s).store(s * kChunkBase, std::memory_order_relaxed); }
  void count_chunks(uint64_t s, uint64_t chunks);
  // Until rank r has recorded operation s and counted `chunks` chunks of
  // it, or left s (done with it, or failed: agreement.h's check).
  [[nodiscard]] Err wait_chunks(int r, uint64_t s, uint64_t chunks) const;
  // After wait_chunks, of a rank whose record of s I checked: whether it
  // counted them (false: it left s without, having failed).
  bool counted(int r, uint64_t s, uint64_t chunks) const {
    return chunk_word(r, s).load(std::memory_order_acquire) >= s * kChunkBase + chunks;
  }
  // Rank r's cell that holds chunk j of a stream.
  char* chunk_cell(int r, uint64_t j) const {
    return cells_ + (static_cast<size_t>(r) * kCells + j % kCells) * cell_bytes_;
  }
  // Until rank r has left operation s.
  [[nodiscard]] Err wait_left_by(int r, uint64_t s) const { return wait(lines_[r].left, s); }
  // Until every rank has left operation `target` (left_seen_ then says so).
  [[nodiscard]] Err wait_all_left(uint64_t target) {
    if (left_seen_ >= target) return {};
    return wait_left(target);
  }

  FlagLine& line(int r) const { return lines_[r]; }
  // Where rank r's data of operation s is, `bytes` in all: in its slot
  // when they fit, else in its cell. Writer and readers pass the same
  // bytes (the readers after check(), agreement.h).
  char* cell(int r, uint64_t s, size_t bytes) const {
    if (bytes <= kSlotInline) return reinterpret_cast<char*>(&slot(r, s)) + sizeof(SlotHeader);
    if (bytes <= kSlotData) return reinterpret_cast<char*>(&slot(r, s)) + 64;
    return cells_ + (static_cast<size_t>(r) * kCells + s % kCells) * cell_bytes_;
  }

  // The waits below fail only when the communicator is revoked while they
  // wait (MPIX_ERR_REVOKED, wait.h); the operation then ends there, and no
  // later collective on the communicator uses the segment (choose.cc).
  //
  // Before writing my slot (and cell, for `bytes` of data) of operation s:
  // nobody reads them any more.
  [[nodiscard]] Err wait_cell_free(uint64_t s, size_t bytes) {
    const uint64_t depth = this->depth(bytes);
    if (s <= depth || left_seen_ >= s - depth) [[likely]] return {};
    return wait_left(s - depth);
  }
  // Nonblocking form (started.cc): nullptr when every rank has left
  // `target`, else a flag still short of it.
  const std::atomic<uint64_t>* first_not_left(uint64_t target);
  // The depth a writer of `bytes` waits for (see wait_cell_free).
  uint64_t depth(size_t bytes) const { return bytes <= kSlotData ? ring_ : kCells; }
  // My input of operation s is in my cell: tell the others.
  void publish(uint64_t s);
  // I am done with operation s (read what I needed).
  void leave(uint64_t s);
  // Both at once (a rank that only writes, such as a bcast's root).
  void publish_and_leave(uint64_t s);
  // Whether rank r's data of operation s is in place (its record_data), or
  // its flag has reached s (a rank with no record of s: by message or
  // nothing to move, agreement.h).
  bool arrived(int r, uint64_t s) const {
    return slot(r, s).recorded.load(std::memory_order_acquire) >= 4 * s + 2 ||
           lines_[r].arrived.load(std::memory_order_acquire) >= s;
  }
  // Waits until arrived(r, s). Inline for a rank that has arrived already
  // (issue 29: a call per operand combined).
  [[nodiscard]] Err wait_arrived(int r, uint64_t s) const {
    if (arrived(r, s)) [[likely]] return {};
    return wait_arrived_slowly(r, s, nullptr, 0);
  }
  // The same for a reader that will then take `len` bytes at `data`, rank
  // r's in its slot or cell of operation s (from cell()). Where they lie in
  // the slot's lines after its header's, they are loaded while the record
  // is: a reader otherwise takes the header's line from the writer's core
  // and only then the data's, one cross-core transfer after the other (on
  // 2 ranks, 64-256 B allreduce took 0.15 us more than 32 B, whose data
  // shares the header's line). A line loaded before its writer is done is
  // only loaded again: correctness stays with the record (acquire).
  [[nodiscard]] Err wait_arrived(int r, uint64_t s, const char* data, size_t len) const {
    const char* lines = in_slot_lines(r, s, data, len) ? data : nullptr;
    if (lines != nullptr) prefetch_lines(lines, len);
    if (arrived(r, s)) [[likely]] return {};
    return wait_arrived_slowly(r, s, lines, len);
  }
  // Waits until rank r's flag has reached s (a barrier: nobody records).
  [[nodiscard]] Err wait_flag(int r, uint64_t s) const { return wait(lines_[r].arrived, s); }
  // The two words arrived() reads (started.cc waits on them).
  const std::atomic<uint64_t>& record_word(int r, uint64_t s) const { return slot(r, s).recorded; }
  // Bytes rank r put in its cell of operation s (after wait_arrived).
  size_t bytes_in(int r, uint64_t s) const { return slot(r, s).bytes.load(std::memory_order_relaxed); }
  // Records my bytes of operation s, and whether I run it by message
  // (agreement.h): a reader's record, once it has seen a writer of
  // operation s arrive (which waited for wait_cell_free).
  void record(uint64_t s, size_t bytes, bool by_message = false) { store_record(s, bytes, by_message ? 1 : 0); }
  // A writer's record, after its data of operation s is in place (and it
  // waited for wait_cell_free): readers may take the data from here on.
  void record_data(uint64_t s, size_t bytes) { store_record(s, bytes, 2); }
  // Whether rank r recorded operation s as run by message (after
  // wait_arrived(r, s) or wait_recorded_or_arrived(r, s), and has_record).
  bool by_message(int r, uint64_t s) const {
    return (slot(r, s).recorded.load(std::memory_order_acquire) & 1) != 0;
  }
  // Waits until rank r has recorded operation s, or raised its arrival
  // flag to s (without a record if it had nothing to move, agreement.h).
  [[nodiscard]] Err wait_recorded_or_arrived(int r, uint64_t s) const;
  // Whether rank r recorded operation s (after one of the waits above). A
  // rank overwrites its record of s only at s + ring(), once every rank
  // has left s, so a smaller value is an older operation's.
  bool has_record(int r, uint64_t s) const { return slot(r, s).recorded.load(std::memory_order_acquire) >= 4 * s; }

  // Operations of nonblocking and persistent calls that this rank started
  // on the segment and has not finished (started.h). Changed with the
  // engine lock held; read without it by a blocking call of the thread
  // that started them.
  int outstanding() const { return outstanding_.load(std::memory_order_relaxed); }

  CommSegment() = default;
  ~CommSegment();
  CommSegment(const CommSegment&) = delete;
  CommSegment& operator=(const CommSegment&) = delete;

 private:
  friend CommSegment* segment_for(Communicator* c, bool now);
  friend struct StartedQueue;
  friend StartedQueue& queue_of(CommSegment& seg);
  friend void forget(CommSegment* seg);
  friend bool segment_among(Communicator* c, const std::vector<int>& members, int my_index,
                            std::unique_ptr<CommSegment>* out);
  void wake_others();
  bool raise_deferred(bool now);
  void defer_slowly();
  friend void raise_all_deferred();
  Err wait(const std::atomic<uint64_t>& word, uint64_t target) const;
  Err wait_arrived_slowly(int r, uint64_t s, const char* lines, size_t len) const;
  // Whether [data, data + len) lies in rank r's slot of s after the
  // header's line (data of kSlotInline..kSlotData bytes, cell()).
  bool in_slot_lines(int r, uint64_t s, const char* data, size_t len) const {
    const char* first = reinterpret_cast<const char*>(&slot(r, s)) + 64;
    return len != 0 && data >= first && data + len <= first + kSlotData;
  }
  static void prefetch_lines(const char* data, size_t len) {
    const uintptr_t first = reinterpret_cast<uintptr_t>(data) & ~uintptr_t{63};
    for (uintptr_t line = first; line < reinterpret_cast<uintptr_t>(data) + len; line += 64)
      __builtin_prefetch(reinterpret_cast<const void*>(line));
  }
  Err wait_left(uint64_t target);
  void map_layout();  // lines_, slots_, cells_ in memory_ (segment.h's layout)
  SlotHeader& slot(int r, uint64_t s) const {
    return *reinterpret_cast<SlotHeader*>(slots_ + (static_cast<size_t>(r) * ring_ + (s & (ring_ - 1))) * kSlotBytes);
  }
  std::atomic<uint64_t>& chunk_word(int r, uint64_t s) const {
    return *reinterpret_cast<std::atomic<uint64_t>*>(reinterpret_cast<char*>(&slot(r, s)) + sizeof(SlotHeader));
  }
  void store_record(uint64_t s, size_t bytes, uint64_t flags) {
    SlotHeader& h = slot(me_, s);
    h.bytes.store(bytes, std::memory_order_relaxed);
    h.recorded.store(4 * s + flags, std::memory_order_release);
  }

  transport::shm::Segment memory_;
  FlagLine* lines_ = nullptr;
  char* slots_ = nullptr;
  char* cells_ = nullptr;
  // The least `left` over every rank when last read (wait_cell_free): a
  // lower bound, since flags only grow.
  uint64_t left_seen_ = 0;
  size_t cell_bytes_ = 0;
  uint64_t ring_ = kRing;
  bool ranks_share_cores_ = false;
  int n_ = 0;
  int me_ = 0;
  uint64_t sequence_ = 0;
  uint64_t deferred_ = 0;  // the last operation whose flags defer_nothing left down, or 0
  bool listed_ = false;    // in the list raise_all_deferred() goes through
  uint32_t context_ = 0;  // the communicator's, to notice its revocation while waiting
  std::vector<int> others_;  // world ranks of the other members, to wake
  PeerBells bells_;          // their bells, found at the first wake-up
  bool holds_room_ = false;  // a host segment's (segment_among): one of FERRY_COLL_SHM_SEGMENTS
  StartedQueue* started_ = nullptr;  // made at the first start (started.cc), freed by forget()
  std::atomic<int> outstanding_{0};
};

// The coll layer's state of one communicator (Communicator::coll_state),
// destroyed with it: the segment is unmapped (transport::shm::Segment) and
// its room given back when the communicator goes (MPI_Comm_free, once its
// pending operations are done). Declared here for segment_if_made and
// never_has_segment, which every call with no data asks (segment.cc makes
// and reads the rest).
struct CommState {
  enum class Status : uint8_t { kIneligible, kEligible, kMaking, kReady } status = Status::kIneligible;
  bool holds_room = false;
  // Blocking collectives this eligible communicator ran by messages before
  // its segment is made (FERRY_COLL_SHM_AFTER); every rank counts alike.
  uint32_t calls_before = 0;
  CommSegment segment;
  std::shared_ptr<void> hierarchy;  // coll/hier's (hierarchy_slot)
  std::shared_ptr<void> onepass;    // coll/device_onepass.h's (onepass_slot)

  ~CommState();
};

// Whether `c` may use shared-memory collectives at all: an
// intracommunicator of 2 or more ranks, all sharing this host's memory,
// and no failed attempt to make its segment. Every rank computes the same
// answer. Whether FERRY_COLL_SHM is on is each rank's own answer (auto
// counts the ranks and cores of its job and cgroup), so it is not asked
// here but in the creation's allreduce: ranks of one communicator from
// different jobs could answer differently, and the ones that said yes
// would wait at the creation for ones that never came. Cheap after the
// first call (cached).
bool eligible(Communicator* c);

// The segment, made now if it is not yet and the communicator has run its
// first FERRY_COLL_SHM_AFTER blocking collectives by messages, or `now`
// (collective: every rank of `c` calls it at every blocking collective,
// choose.cc, passing the same `now`); nullptr until then, or if it could
// not be made, which every rank learns alike, and eligible() is false from
// then on.
CommSegment* segment_for(Communicator* c, bool now = false);

// The segment if it has been made already (by a blocking collective), else
// nullptr; never makes it (a nonblocking call must not wait for the others,
// started.h).
// Inline: a call with no data asks it every time (issue 29). Without a
// state yet, nothing was made (no state_of, which would make one).
inline __attribute__((always_inline)) CommSegment* segment_if_made(Communicator* c) {
  auto* st = static_cast<CommState*>(c->coll_state.get());
  return st != nullptr && st->status == CommState::Status::kReady ? &st->segment : nullptr;
}

// Whether `c` was found unable ever to have a segment: not an
// intracommunicator of 2 or more ranks all on this host (it spans hosts),
// a shadow with a fixed collective tag, no shm transport, or a making that
// failed (CommState: decided by its first collective and never undone).
// Inline: a call with no data asks it every time (coll/at_once.h).
inline __attribute__((always_inline)) bool never_has_segment(const Communicator* c) {
  const auto* st = static_cast<const CommState*>(c->coll_state.get());
  return st != nullptr && st->status == CommState::Status::kIneligible;
}

// Raises the flags that defer_nothing left down, on every segment of this
// process (the progress engine's coll/shm source, at each pass).
void raise_all_deferred();

// FERRY_COLL_SHM_CELL, in whole cache lines: the same on every rank of the
// job (for choices that ranks on different hosts must make alike).
size_t configured_cell_bytes();
// The cells of the segments this process makes: FERRY_COLL_SHM_CELL, or
// where it is unset and the host's ranks (at most 16) outnumber its cores,
// 128 KiB (up to 4 ranks) or 64 KiB. Whoever maps a segment takes its maker's (segment.cc,
// Announcement): ranks of one host need not agree on this.
size_t cell_bytes_here();

// FERRY_COLL_SHM on this host (auto: unless its ranks outnumber its cores
// more than four times).
bool enabled();

// A segment among `members` of `c` (ranks sharing this host, ascending; this
// rank at `my_index`), for coll/hier's phases within one host of a
// communicator that spans hosts. Collective over every rank of `c`, each
// passing its own host's members: each host's first member creates the
// segment and a binomial bcast among the members tells the others its name
// (one collective tag for all), then an allreduce over `c` agrees that
// every host's members mapped theirs (FERRY_COLL_SHM on, room under
// FERRY_COLL_SHM_SEGMENTS). False on every rank alike if one did not; *out
// stays empty on a host of one member, which needs none.
bool segment_among(Communicator* c, const std::vector<int>& members, int my_index,
                   std::unique_ptr<CommSegment>* out);

// coll/hier's state of `c` (hier/structure.h), kept beside this layer's in
// Communicator::coll_state and destroyed with it.
std::shared_ptr<void>& hierarchy_slot(Communicator* c);
// coll/device_onepass.h's state of `c`, likewise.
std::shared_ptr<void>& onepass_slot(Communicator* c);

}  // namespace ferry::coll::shm
