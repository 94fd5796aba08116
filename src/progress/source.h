// What the progress engine polls (progress/progress.h): each transport is a
// source, and so are the operations it advances in the background
// (progress/tasks.h). The engine knows nothing else about them.
#pragma once

namespace ferry::progress {

class Source {
 public:
  virtual ~Source() = default;
  // Moves whatever can move without blocking; returns how many events
  // (packets sent or received, operations advanced) happened.
  virtual int progress() = 0;
  // A file descriptor that becomes readable when progress() would find work,
  // for sleeping in the kernel; -1 if the source cannot be waited on.
  virtual int wait_fd() const { return -1; }
  // Before the engine sleeps on wait_fd(): a source that other processes
  // feed through memory (shared memory) tells them to make the fd fire,
  // then re-checks for work that came before they could see that. False:
  // work is there, do not sleep (nothing to undo). After true, one
  // disarm_wakeup() follows (slept: epoll_wait ran with a timeout). Both
  // run with the engine lock held.
  virtual bool arm_wakeup() { return true; }
  virtual void disarm_wakeup(bool slept) { (void)slept; }
};

}  // namespace ferry::progress
