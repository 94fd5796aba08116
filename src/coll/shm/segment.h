// A communicator's shared-memory collective segment (coll/shm), made at
// its first blocking collective that has a shared-memory algorithm,
// whatever the call's size (coll/choose.cc, segment_if_possible).
//
// Layout, for the communicator's n ranks (all on this host):
//   n flag lines, one 64-byte line per rank, written only by that rank:
//     arrived: the last operation whose input this rank has written
//     left:    the last operation this rank has finished (read what it
//              needed from the others' cells)
//   n x kSlots cells of cell_bytes, rank r's slot k at (r * kSlots + k),
//   written only by rank r.
//
// Operations are numbered 1, 2, ... in call order, the same on every rank
// (MPI-3.1 §5.12: collectives are called in the same order). Operation s
// uses slot s % kSlots. Before a rank writes its cell for operation s it
// waits until every rank has left s - kSlots, so that nobody still reads
// what it overwrites; with two slots a root (bcast) may run one operation
// ahead of the slowest reader without waiting. A flag only grows, so every
// wait is "this flag has reached s" (wait.h).
//
// Memory: n x (64 + kSlots x cell_bytes) bytes per communicator and host,
// FERRY_COLL_SHM_CELL bytes per cell (default 16 KiB: 2 ranks 64 KiB,
// 8 ranks 256 KiB), made only for communicators that use collectives, and
// at most FERRY_COLL_SHM_SEGMENTS (64) mapped by a process at once: the
// communicators beyond it use messages (every rank of the communicator
// learns it alike in the creation's allreduce).
//
// Creation (blocking, collective): rank 0 creates and sizes a named
// segment, broadcasts its name, every rank maps it, an allreduce agrees
// that all did (else nobody uses it and the communicator keeps the
// message-based algorithms), and rank 0 removes the name: nothing outlives
// the job in /dev/shm. Both steps use the message-based algorithms (the
// segment is not ready yet). Freed with the communicator (unmapped, its
// room under the cap given back) at MPI_Comm_free, once no request refers
// to it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/communicator.h"
#include "base/error.h"
#include "transport/shm/segment.h"

namespace ferry::coll::shm {

struct StartedQueue;  // started.cc

struct alignas(64) FlagLine {
  std::atomic<uint64_t> arrived;
  std::atomic<uint64_t> left;
  // What the rank passed to operation s, per slot (agreement.h): its
  // bytes, and `recorded` = 2s, or 2s + 1 when it runs the operation by
  // message. Written before `arrived` (writers) or after the first wait
  // (readers), always once every rank has left s - kSlots, so that
  // nobody still reads what operation s - kSlots recorded there.
  std::atomic<uint64_t> bytes[2];
  std::atomic<uint64_t> recorded[2];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "flags are shared between processes");

class CommSegment {
 public:
  static constexpr uint64_t kSlots = 2;

  int size() const { return n_; }
  int rank() const { return me_; }
  size_t cell_bytes() const { return cell_bytes_; }
  // The next operation's number (every rank calls this once per operation).
  // Raises the flags that defer_nothing left down first, `left` at least: a
  // writer of this operation may wait for it (wait_cell_free).
  uint64_t next() {
    if (deferred_ != 0) [[unlikely]] (void)raise_deferred(false);
    return ++sequence_;
  }

  // The cheap form of agreement.h's record_nothing, for a blocking call with
  // no data (coll/at_once.h) while no started operation is pending and the
  // engine runs on one thread: takes the operation's number s and only
  // notes that its flags (arrived, left) are still to be raised. In a
  // correct program nobody waits on them (every rank passed no data at s),
  // but a writer of a later operation waits for `left` to reuse the slots:
  // it goes up at this rank's next operation on the segment (next()). Its
  // `arrived` goes up there too, or is covered by a later one (flags only
  // grow; a flag of s without a record of s means 0 bytes to whoever reads
  // it), but only once every rank has left s - kSlots: an arrival at s lets
  // readers of s record in slot s (as a writer's does after
  // wait_cell_free); sooner, their record could overwrite one that a
  // slower rank still reads. In an erroneous program, where a rank with
  // data at s waits on this one, both go up at this rank's passes of the
  // progress engine too (raise_all_deferred: any wait, test or blocking
  // call), or when the segment goes; the rank that waits then fails
  // instead of waiting for ever. In a loop of
  // calls with no data it costs an increment and a store: no store to
  // shared memory, no wake-up (issue 29).
  void defer_nothing() {
    deferred_ = ++sequence_;
    if (!listed_) [[unlikely]] list_deferred();
  }

  FlagLine& line(int r) const { return lines_[r]; }
  char* cell(int r, uint64_t s) const {
    return cells_ + (static_cast<size_t>(r) * kSlots + s % kSlots) * cell_bytes_;
  }

  // The waits below fail only when the communicator is revoked while they
  // wait (MPIX_ERR_REVOKED, wait.h); the operation then ends there, and no
  // later collective on the communicator uses the segment (choose.cc).
  //
  // Before writing my cell of operation s: nobody reads slot s % kSlots any more.
  [[nodiscard]] Err wait_cell_free(uint64_t s) const;
  // My input of operation s is in my cell: tell the others.
  void publish(uint64_t s);
  // I am done with operation s (read what I needed).
  void leave(uint64_t s);
  // Both at once (a rank that only writes, such as a bcast's root).
  void publish_and_leave(uint64_t s);
  // Waits until rank r's input of operation s is there.
  [[nodiscard]] Err wait_arrived(int r, uint64_t s) const;
  // Bytes rank r put in its cell of operation s (after wait_arrived).
  size_t bytes_in(int r, uint64_t s) const {
    return lines_[r].bytes[s % kSlots].load(std::memory_order_relaxed);
  }
  // Records my bytes of operation s, and whether I run it by message
  // (agreement.h). A writer records before publish(); a reader once it has
  // seen a writer of operation s arrive (which waited for wait_cell_free).
  void record(uint64_t s, size_t bytes, bool by_message = false) {
    lines_[me_].bytes[s % kSlots].store(bytes, std::memory_order_relaxed);
    lines_[me_].recorded[s % kSlots].store(2 * s + (by_message ? 1 : 0), std::memory_order_release);
  }
  // Whether rank r recorded operation s as run by message (after
  // wait_arrived(r, s) or wait_recorded_or_arrived(r, s), and has_record).
  bool by_message(int r, uint64_t s) const {
    return (lines_[r].recorded[s % kSlots].load(std::memory_order_acquire) & 1) != 0;
  }
  // Waits until rank r has recorded operation s, or raised its arrival
  // flag to s (without a record if it had nothing to move, agreement.h).
  [[nodiscard]] Err wait_recorded_or_arrived(int r, uint64_t s) const;
  // Whether rank r recorded operation s (after one of the waits above). A
  // rank overwrites its record of s only at s + kSlots, once every rank
  // has left s, so a smaller value is an older operation's.
  bool has_record(int r, uint64_t s) const {
    return lines_[r].recorded[s % kSlots].load(std::memory_order_acquire) >= 2 * s;
  }

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
  friend CommSegment* segment_for(Communicator* c);
  friend struct StartedQueue;
  friend StartedQueue& queue_of(CommSegment& seg);
  friend void forget(CommSegment* seg);
  friend bool segment_among(Communicator* c, const std::vector<int>& members, int my_index,
                            std::unique_ptr<CommSegment>* out);
  void wake_others();
  bool raise_deferred(bool now);
  void list_deferred();
  friend void raise_all_deferred();
  Err wait(const std::atomic<uint64_t>& word, uint64_t target) const;

  transport::shm::Segment memory_;
  FlagLine* lines_ = nullptr;
  char* cells_ = nullptr;
  size_t cell_bytes_ = 0;
  int n_ = 0;
  int me_ = 0;
  uint64_t sequence_ = 0;
  uint64_t deferred_ = 0;  // the last operation whose flags defer_nothing left down, or 0
  bool listed_ = false;    // in the list raise_all_deferred() goes through
  uint32_t context_ = 0;  // the communicator's, to notice its revocation while waiting
  std::vector<int> others_;  // world ranks of the other members, to wake
  bool holds_room_ = false;  // a host segment's (segment_among): one of FERRY_COLL_SHM_SEGMENTS
  StartedQueue* started_ = nullptr;  // made at the first start (started.cc), freed by forget()
  std::atomic<int> outstanding_{0};
};

// Whether `c` may use shared-memory collectives at all: an
// intracommunicator of 2 or more ranks, all sharing this host's memory,
// with FERRY_COLL_SHM on, and no failed attempt to make its segment. Every
// rank computes the same answer. Cheap after the first call (cached).
bool eligible(Communicator* c);

// The segment, made now if it is not yet (collective: every rank of `c`
// calls it at the same operation); nullptr if it could not be made, which
// every rank learns alike, and eligible() is false from then on.
CommSegment* segment_for(Communicator* c);

// The segment if it has been made already (by a blocking collective), else
// nullptr; never makes it (a nonblocking call must not wait for the others,
// started.h).
CommSegment* segment_if_made(Communicator* c);

// Raises the flags that defer_nothing left down, on every segment of this
// process (the progress engine's coll/shm source, at each pass).
void raise_all_deferred();

// FERRY_COLL_SHM_CELL, in whole cache lines: the same on every rank.
size_t configured_cell_bytes();

// FERRY_COLL_SHM on this host (auto: unless its ranks outnumber its cores).
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

}  // namespace ferry::coll::shm
