#include "progress/tasks.h"

#include <list>

namespace ferry::progress {
namespace {

// Guarded by the engine lock, like everything poll() touches.
std::list<std::unique_ptr<Task>> tasks;

}  // namespace

void start(std::unique_ptr<Task> task) { tasks.push_back(std::move(task)); }

size_t running_tasks() { return tasks.size(); }

int advance_tasks() {
  // A task may call back into code that polls (an extended generalized
  // request's poll function calling MPI_Iprobe, say): the nested pass leaves
  // the tasks to this one, which would otherwise find the one it is
  // advancing erased under it.
  static bool advancing = false;
  if (advancing) return 0;
  advancing = true;
  int events = 0;
  for (auto it = tasks.begin(); it != tasks.end();) {
    if ((*it)->advance()) {
      it = tasks.erase(it);
      ++events;
    } else {
      ++it;
    }
  }
  advancing = false;
  return events;
}

}  // namespace ferry::progress
