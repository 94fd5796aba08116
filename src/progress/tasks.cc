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
  int events = 0;
  for (auto it = tasks.begin(); it != tasks.end();) {
    if ((*it)->advance()) {
      it = tasks.erase(it);
      ++events;
    } else {
      ++it;
    }
  }
  return events;
}

}  // namespace ferry::progress
