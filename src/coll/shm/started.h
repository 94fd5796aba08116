// Nonblocking collectives through a communicator's shared-memory segment
// (coll/shm, segment.h): MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce,
// MPI_Iallreduce, MPI_Igather, MPI_Iscatter, MPI_Iallgather and
// MPI_Ialltoall move data that fits a cell by the same loads, stores and
// flags as the blocking calls (algorithms.h), advanced by the progress
// engine instead of a wait.
//
// Order. MPI-3.1 §5.12: every rank starts the collectives of a
// communicator in the same order, blocking and nonblocking alike. (Not so
// the starts of persistent ones, MPI-4.0 §6.13, unless the info key
// mpi_assert_strict_persistent_collective_ordering says so: those keep
// their message schedules.) So a started operation takes the
// segment's next number at its start, like a blocking call, and the
// segment's flags keep meaning "this rank has reached operation s": each
// rank finishes its started operations in start order (a queue per
// segment), and one may complete before an earlier one only where the user
// waits for the later one first, which the engine's pass over the queue
// serves (it advances the head, then the next, in one pass). A blocking
// call on the segment first finishes every started operation of this rank
// (settle()): it raises the same flags, which must not overtake an earlier
// operation's.
//
// Progress: coll/shm's progress source (host.cc) advances the queues of
// every segment with started operations at each engine pass; an operation
// checks the flag it waits on once per pass and never spins there. Before
// the engine sleeps, the source refuses the sleep if a flag that a head of
// queue waits on has come up (after the transport armed its doorbell, like
// the blocking waits' re-check, host.h), so no wake-up is lost.
//
// The segment is used only once it exists: it is made at one of the
// communicator's blocking collectives (choose.cc, segment.h), which waits for
// every rank, and a nonblocking call must not (MPI-3.1 §5.12: it is
// local). Until then, and for data above a cell, the message schedules
// run as before. Every rank knows alike whether it exists (it is made at
// the same blocking call on every rank).
//
// Memory: the queue is a ring in the segment that grows to the most
// operations ever outstanding at once; after that a start allocates
// nothing (its request comes from the pool).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "base/request.h"
#include "coll/shm/segment.h"

namespace ferry::coll::shm {

// One call's arguments, as the blocking algorithm takes them.
struct Call {
  enum class Kind : uint8_t {
    kNothing,    // a rank with no data: raises its flags only (agreement.h, a flag without a record)
    kBarrier,
    kBcast,      // recvbuf is the buffer
    kReduce,
    kAllreduce,
    kGather,     // count and type: the receive side's (sendcount, sendtype below)
    kScatter,
    kAllgather,
    kAlltoall,
  } kind = Kind::kNothing;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  MPI_Count count = 0;
  const Datatype* type = nullptr;
  const Op* op = nullptr;
  int root = 0;
  MPI_Count sendcount = 0;  // data movement: the send side
  const Datatype* sendtype = nullptr;
};

// Starts `call` on `seg` as its next operation; `r` (nullptr: nobody
// waits) completes when this rank's part is done. `hold`: takes a
// reference on the call's datatype and operation until then (MPI-3.1
// §4.1.9, §5.9.5: the user may free them meanwhile). Engine lock taken
// here.
void start(CommSegment& seg, const Call& call, Request* r, bool hold);

// A nonblocking call's request, started as above.
Request* start_nonblocking(Communicator* c, CommSegment& seg, const Call& call);

// Until this rank has finished every operation it started on `seg`
// (before a blocking call on it, see above). Cheap when there is none.
void settle(CommSegment& seg);

// The progress source's two halves (host.cc), engine lock held: advances
// every queue as far as it goes now (the number that finished), and
// whether one could go further now.
int advance_started();
bool started_can_advance();

// The segment goes (its communicator is freed): forgets its queue.
void forget(CommSegment* seg);

}  // namespace ferry::coll::shm
