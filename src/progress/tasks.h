// Operations that the progress engine advances in the background: a
// nonblocking collective's schedule (coll/schedule.h), an MPI_Comm_idup's
// context-id agreement (runtime). One list for all of them, polled after
// the transports at every pass. The list runs through the tasks themselves,
// so handing one over allocates nothing: a persistent collective's start
// hands over the same task each time (start_kept).
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

 private:
  friend struct TaskList;
  Task* next_ = nullptr;
  bool owned_ = false;  // the engine destroys it once it has finished
};

// Hands `task` to the engine, which advances it at every pass from now on
// and destroys it once it has finished. Engine lock held.
void start(std::unique_ptr<Task> task);

// The same for a task its caller keeps: the engine only lets go of it once
// it has finished, and the caller may hand it over again after that (not
// before). Engine lock held.
void start_kept(Task* task);

// Advances every task once; returns how many finished. poll() calls it
// after the sources.
int advance_tasks();

}  // namespace ferry::progress
