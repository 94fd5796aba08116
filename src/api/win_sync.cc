// Synchronization calls (MPI-4.0 §12.5): fence, post/start/complete/wait/
// test, lock/unlock and their _all forms, the flushes and MPI_Win_sync.
// The API checks ranks and groups; the epochs' rules live in rma/epochs.h.
#include "api/api.h"
#include "base/group.h"
#include "rma/direct.h"
#include "rma/epochs.h"

using namespace ferry;

namespace {

bool checked_target(api::Call& call, const rma::Window& w, int rank) {
  if (!call.ok()) return false;
  if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w.comm->size)) return true;
  return call.fail(MPI_ERR_RANK, "invalid rank %d (window group size %d)", rank, w.comm->size);
}

Group* checked_group(api::Call& call, MPI_Group handle) {
  if (!call.ok()) return nullptr;
  Group* g = groups::find(handle);
  if (g == nullptr) call.fail(MPI_ERR_GROUP, handle == MPI_GROUP_NULL ? "group is MPI_GROUP_NULL" : "invalid group handle");
  return g;
}

template <typename F>
int on_window(const char* name, MPI_Win win, F body) {
  api::Call call(name);
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  return call.result(body(*w));
}

}  // namespace

extern "C" int PMPI_Win_fence(int assert, MPI_Win win) {
  return on_window("MPI_Win_fence", win, [&](rma::Window& w) { return rma::fence(w, assert); });
}
FERRY_ENTRY(Win_fence)

extern "C" int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  api::Call call("MPI_Win_post");
  rma::Window* w = call.win(win);
  Group* g = checked_group(call, group);
  if (w == nullptr || g == nullptr) return call.raise();
  return call.result(rma::post(*w, *g, assert));
}
FERRY_ENTRY(Win_post)

extern "C" int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  api::Call call("MPI_Win_start");
  rma::Window* w = call.win(win);
  Group* g = checked_group(call, group);
  if (w == nullptr || g == nullptr) return call.raise();
  return call.result(rma::start(*w, *g, assert));
}
FERRY_ENTRY(Win_start)

extern "C" int PMPI_Win_complete(MPI_Win win) {
  return on_window("MPI_Win_complete", win, [](rma::Window& w) { return rma::complete(w); });
}
FERRY_ENTRY(Win_complete)

extern "C" int PMPI_Win_wait(MPI_Win win) {
  return on_window("MPI_Win_wait", win, [](rma::Window& w) { return rma::wait(w); });
}
FERRY_ENTRY(Win_wait)

extern "C" int PMPI_Win_test(MPI_Win win, int* flag) {
  api::Call call("MPI_Win_test");
  rma::Window* w = call.win(win);
  if (w == nullptr || !call.not_null(flag, "flag")) return call.raise();
  bool done = false;
  Err e = rma::test(*w, &done);
  *flag = done ? 1 : 0;
  return call.result(std::move(e));
}
FERRY_ENTRY(Win_test)

extern "C" int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  api::Call call("MPI_Win_lock");
  rma::Window* w = call.win(win);
  if (w == nullptr || !checked_target(call, *w, rank)) return call.raise();
  return call.result(rma::lock(*w, lock_type, rank, assert));
}
FERRY_ENTRY(Win_lock)

extern "C" int PMPI_Win_unlock(int rank, MPI_Win win) {
  api::Call call("MPI_Win_unlock");
  rma::Window* w = call.win(win);
  if (w == nullptr || !checked_target(call, *w, rank)) return call.raise();
  return call.result(rma::unlock(*w, rank));
}
FERRY_ENTRY(Win_unlock)

extern "C" int PMPI_Win_lock_all(int assert, MPI_Win win) {
  return on_window("MPI_Win_lock_all", win, [&](rma::Window& w) { return rma::lock_all(w, assert); });
}
FERRY_ENTRY(Win_lock_all)

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  return on_window("MPI_Win_unlock_all", win, [](rma::Window& w) { return rma::unlock_all(w); });
}
FERRY_ENTRY(Win_unlock_all)

namespace {

int flush_one(const char* name, int rank, MPI_Win win) {
  api::Call call(name);
  rma::Window* w = call.win(win);
  if (w == nullptr || !checked_target(call, *w, rank)) return call.raise();
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (Err e = rma::check_access(*w, rank, name); !e.ok() && !w->epochs.fence)
    return call.result(fail(MPI_ERR_RMA_SYNC, "no passive-target epoch includes rank %d", rank));
  return call.result(rma::flush(*w, rank));
}

int flush_every(const char* name, MPI_Win win) {
  api::Call call(name);
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  // Only within a passive-target epoch (MPI-4.0 §12.5.4), as MPI_Win_flush and MPICH.
  if (w->epochs.locks_held == 0 && !w->epochs.lock_all && !w->epochs.fence)
    return call.result(fail(MPI_ERR_RMA_SYNC, "no passive-target epoch (MPI_Win_lock, MPI_Win_lock_all) is open"));
  return call.result(rma::flush_all(*w));
}

}  // namespace

extern "C" int PMPI_Win_flush(int rank, MPI_Win win) {
  if (rma::direct::flush(rank, win)) return MPI_SUCCESS;
  return flush_one("MPI_Win_flush", rank, win);
}
FERRY_ENTRY(Win_flush)

extern "C" int PMPI_Win_flush_local(int rank, MPI_Win win) {
  if (rma::direct::flush(rank, win)) return MPI_SUCCESS;
  return flush_one("MPI_Win_flush_local", rank, win);
}
FERRY_ENTRY(Win_flush_local)

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  if (rma::direct::flush_all(win)) return MPI_SUCCESS;
  return flush_every("MPI_Win_flush_all", win);
}
FERRY_ENTRY(Win_flush_all)

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  if (rma::direct::flush_all(win)) return MPI_SUCCESS;
  return flush_every("MPI_Win_flush_local_all", win);
}
FERRY_ENTRY(Win_flush_local_all)

extern "C" int PMPI_Win_sync(MPI_Win win) {
  return on_window("MPI_Win_sync", win, [](rma::Window& w) { return rma::sync(w); });
}
FERRY_ENTRY(Win_sync)
