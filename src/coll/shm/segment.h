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
  uint64_t next() { return ++sequence_; }

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
  Err wait(const std::atomic<uint64_t>& word, uint64_t target) const;

  transport::shm::Segment memory_;
  FlagLine* lines_ = nullptr;
  char* cells_ = nullptr;
  size_t cell_bytes_ = 0;
  int n_ = 0;
  int me_ = 0;
  uint64_t sequence_ = 0;
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
