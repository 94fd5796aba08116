#include "progress/tasks.h"

namespace ferry::progress {

// First in, first advanced; a task handed over while the list is being
// advanced (by one that finishes into another) is advanced in the same pass.
// Guarded by the engine lock, like everything poll() touches.
struct TaskList {
  Task* head = nullptr;
  Task** tail = &head;

  void append(Task* task, bool owned) {
    task->next_ = nullptr;
    task->owned_ = owned;
    *tail = task;
    tail = &task->next_;
  }

  int advance_all() {
    int finished = 0;
    for (Task** link = &head; *link != nullptr;) {
      Task* task = *link;
      if (!task->advance()) {
        link = &task->next_;
        continue;
      }
      *link = task->next_;
      if (tail == &task->next_) tail = link;
      ++finished;
      if (task->owned_) delete task;
    }
    return finished;
  }
};

namespace {
TaskList tasks;
}  // namespace

void start(std::unique_ptr<Task> task) { tasks.append(task.release(), true); }

void start_kept(Task* task) { tasks.append(task, false); }

int advance_tasks() {
  // A task may call back into code that polls (an extended generalized
  // request's poll function calling MPI_Iprobe, say): the nested pass leaves
  // the tasks to this one, which would otherwise unlink the one it is
  // advancing under it.
  static bool advancing = false;
  if (advancing) return 0;
  advancing = true;
  int finished = tasks.advance_all();
  advancing = false;
  return finished;
}

}  // namespace ferry::progress
