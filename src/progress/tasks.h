// Operations that the progress engine advances in the background: a
// nonblocking collective's schedule (coll/schedule.h), an MPI_Comm_idup's
// context-id agreement (runtime). One list for all of them, polled after
// the transports at every pass; its owner hands a task over and the engine
// destroys it once it has finished.
#pragma once

#include <memory>

namespace ferry::progress {

class Task {
 public:
  virtual ~Task() = default;
  // Moves the operation forward without blocking; true once it has finished
  // (it has completed its request, with or without an error). Engine lock
  // held.
  virtual bool advance() = 0;
};

// Hands `task` to the engine, which advances it at every pass from now on.
// Engine lock held.
void start(std::unique_ptr<Task> task);

// Tasks not finished yet (tests, finalize).
size_t running_tasks();

// Advances every task once; returns how many finished. poll() calls it
// after the sources.
int advance_tasks();

}  // namespace ferry::progress
