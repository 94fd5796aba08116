// The nonblocking collective data accesses (MPI-3.1 §13.4.1, MPI_File_iread_all,
// _iwrite_all, _iread_at_all, _iwrite_at_all and their _c forms): the call
// returns once the access is queued, and the collective (io/collective.h:
// the same decision, two-phase or direct, as the blocking form) runs on a
// thread of the file's own, so that it progresses while every caller
// computes outside MPI. One rank's MPI_Wait needs no other rank to be
// inside MPI, only to have started the access.
//
// One thread per file, started by the file's first such call and joined by
// MPI_File_close (or MPI_Finalize): a thread per process would deadlock,
// because ranks may start accesses on two files in different orders
// (nonblocking collectives are ordered per communicator only, §5.12), and
// a thread per request would let two accesses of one file race on its
// communicator. The thread runs the file's accesses one after another in
// the order this process started them; every process starts them in the
// same order (§5.12's rule for collectives), so they match.
//
// Order with the file's other collectives: they share the file's private
// communicator (io/file.h), so a collective started on the calling thread
// (write_all, set_view, sync, close, ...) first waits for the accesses
// started before it (wait_for_started): the communicator then carries one
// collective at a time, in the same order everywhere.
//
// The thread drives point-to-point progress as an MPI_THREAD_MULTIPLE
// caller does, under the engine lock (progress/progress.h); the first
// start turns that lock on (progress::enable_locking) at any thread level.
// Cost: the thread and its collective buffers (cb_buffer_size each) for
// the file's life, and, from then on, an uncontended mutex per MPI call.
//
// What the access reads of the file (view, atomicity, hints) cannot change
// while it runs: the calls that change them are collective (set_info too,
// §13.2.8) and wait for it first, as MPI requires anyway (§13.3: no
// set_view while requests are outstanding). The file pointer is resolved
// at the start and moved past the whole request (§13.4.3).
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "base/request.h"
#include "io/access.h"
#include "io/file.h"

namespace ferry::io {

// A file's thread and the accesses it has still to run (File::collective_queue).
class CollectiveQueue {
 public:
  // One started access, as the thread will run it.
  struct Job {
    const char* call = nullptr;
    Direction direction = Direction::kRead;
    Where where = Where::kExplicitOffset;  // or kFromPointer: the pointer resolved at the start
    MPI_Offset offset = 0;                 // etypes
    Buffer buffer{};                       // its datatype retained until the request completes
    Err checked;                           // io::check_access's finding: take part with no data
    Request* request = nullptr;
  };

  explicit CollectiveQueue(File& f);
  ~CollectiveQueue();  // after the last job: ends the thread
  void push(Job job);

 private:
  void run();

  File& file_;
  std::mutex mutex_;  // jobs_, quitting_
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool quitting_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

namespace nonblocking_collective {

// Starts the collective access of `buffer` (at `offset` etypes for
// kExplicitOffset, at the individual file pointer for kIndividualPointer)
// and returns its request: complete once every process's access is done,
// with the bytes moved in its status and the error class every process
// agreed on. What io::check_access finds wrong is the request's error, not
// the call's: the process takes part with no data, so that the others end
// too. `call` ("MPI_File_iwrite_all") starts the message of that error.
// (Arguments the API rejects, a null request say, leave no request to
// report on: api/file_access.cc takes part in the access at the call.)
Err start(File& f, const char* call, Direction direction, Where where, MPI_Offset offset, const Buffer& buffer,
          Request** out);

// Before a collective on f.comm started on the calling thread: waits until
// every nonblocking collective access this process started on `f` is done.
// Free (one atomic load) when none is outstanding; a no-op on the file's
// own thread.
void wait_for_started(File& f);

// MPI_File_close and MPI_Finalize: waits for the accesses still running and
// ends the file's thread (MPI says closing with requests outstanding is
// erroneous; this waits instead).
void stop(File& f);

}  // namespace nonblocking_collective
}  // namespace ferry::io
