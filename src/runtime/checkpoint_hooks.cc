#include "runtime/checkpoint_hooks.h"

#include <mutex>
#include <vector>

namespace ferry::runtime::checkpoint_hooks {

namespace {

struct Hook {
  MPIX_Checkpoint_fn* save;
  MPIX_Checkpoint_fn* restore;
  void* state;
};

std::mutex hooks_mutex;  // add() may race a checkpoint under MPI_THREAD_MULTIPLE
std::vector<Hook> hooks;
thread_local bool inside_hook = false;

Err run(MPIX_Checkpoint_fn* Hook::*which, const char* kind, MPI_Comm comm, const std::string& dir) {
  std::vector<Hook> now;
  {
    std::lock_guard<std::mutex> hold(hooks_mutex);
    now = hooks;
  }
  // Hooks may call MPI (a barrier, a reduction of their own), so none runs
  // with a lock of ours held.
  for (size_t i = 0; i < now.size(); ++i) {
    MPIX_Checkpoint_fn* fn = now[i].*which;
    if (fn == nullptr) continue;
    inside_hook = true;
    int rc = fn(comm, dir.c_str(), now[i].state);
    inside_hook = false;
    if (rc != MPI_SUCCESS)
      return fail(MPI_ERR_OTHER, "%s hook %zu of %zu returned %d (in %s)", kind, i + 1, now.size(), rc, dir.c_str());
  }
  return {};
}

}  // namespace

Err add(MPIX_Checkpoint_fn* save, MPIX_Checkpoint_fn* restore, void* state) {
  std::lock_guard<std::mutex> hold(hooks_mutex);
  hooks.push_back(Hook{save, restore, state});
  return {};
}

bool running() { return inside_hook; }

Err run_save(MPI_Comm comm, const std::string& dir) { return run(&Hook::save, "save", comm, dir); }
Err run_restore(MPI_Comm comm, const std::string& dir) { return run(&Hook::restore, "restore", comm, dir); }

}  // namespace ferry::runtime::checkpoint_hooks
