// Windows as objects (MPI-4.0 §12.2): creation in its four flavors and
// their large-count forms, MPI_Win_free, attach/detach, shared_query,
// group, info, names. Errors of the creation calls go to the
// communicator's handler; every other call's to the window's (§12.6).
#include <cstring>

#include "api/api.h"
#include "base/group.h"
#include "base/info.h"
#include "rma/create.h"
#include "rma/window.h"

using namespace ferry;

namespace {

bool checked_size(api::Call& call, MPI_Aint size) {
  if (!call.ok()) return false;
  if (size < 0) return call.fail(MPI_ERR_SIZE, "invalid size %ld (must be >= 0)", static_cast<long>(size));
  return true;
}

bool checked_disp_unit(api::Call& call, MPI_Aint disp_unit) {
  if (!call.ok()) return false;
  if (disp_unit <= 0 || disp_unit > INT32_MAX)
    return call.fail(MPI_ERR_DISP, "invalid disp_unit %ld (must be > 0)", static_cast<long>(disp_unit));
  return true;
}

int win_create(const char* name, void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
               MPI_Win* win) {
  api::Call call(name);
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(win, "win")) return call.raise();
  const Info* hints = api::checked_hints(call, info);
  if (!checked_size(call, size) || !checked_disp_unit(call, disp_unit)) return call.raise();
  if (base == nullptr && size > 0) {
    call.fail(MPI_ERR_BASE, "base is NULL with size %ld", static_cast<long>(size));
    return call.raise();
  }
  if (hints == nullptr) return call.raise();
  rma::Window* w = nullptr;
  Err e = rma::create(c, base, size, static_cast<int>(disp_unit), hints, &w);
  *win = w != nullptr ? w->handle : MPI_WIN_NULL;
  return call.result(std::move(e));
}

int win_allocate(const char* name, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                 MPI_Win* win, bool shared) {
  api::Call call(name);
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(win, "win") || !call.not_null(baseptr, "baseptr")) return call.raise();
  const Info* hints = api::checked_hints(call, info);
  if (!checked_size(call, size) || !checked_disp_unit(call, disp_unit) || hints == nullptr) return call.raise();
  rma::Window* w = nullptr;
  void* base = nullptr;
  Err e = rma::allocate(c, size, static_cast<int>(disp_unit), hints, shared, &base, &w);
  *static_cast<void**>(baseptr) = base;
  *win = w != nullptr ? w->handle : MPI_WIN_NULL;
  return call.result(std::move(e));
}

int shared_query(const char* name, MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  api::Call call(name);
  rma::Window* w = call.win(win);
  if (w == nullptr || !call.not_null(size, "size") || !call.not_null(disp_unit, "disp_unit") ||
      !call.not_null(baseptr, "baseptr"))
    return call.raise();
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->comm->size)) {
    call.fail(MPI_ERR_RANK, "invalid rank %d (window group size %d)", rank, w->comm->size);
    return call.raise();
  }
  int unit = 1;
  void* base = nullptr;
  Err e = rma::shared_query(*w, rank, size, &unit, &base);
  *disp_unit = unit;
  *static_cast<void**>(baseptr) = base;
  return call.result(std::move(e));
}

}  // namespace

extern "C" int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return win_create("MPI_Win_create", base, size, disp_unit, info, comm, win);
}
FERRY_ENTRY(Win_create)

extern "C" int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                 MPI_Win* win) {
  return win_create("MPI_Win_create_c", base, size, disp_unit, info, comm, win);
}
FERRY_ENTRY(Win_create_c)

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                 MPI_Win* win) {
  return win_allocate("MPI_Win_allocate", size, disp_unit, info, comm, baseptr, win, false);
}
FERRY_ENTRY(Win_allocate)

extern "C" int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                   MPI_Win* win) {
  return win_allocate("MPI_Win_allocate_c", size, disp_unit, info, comm, baseptr, win, false);
}
FERRY_ENTRY(Win_allocate_c)

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                        MPI_Win* win) {
  return win_allocate("MPI_Win_allocate_shared", size, disp_unit, info, comm, baseptr, win, true);
}
FERRY_ENTRY(Win_allocate_shared)

extern "C" int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                          void* baseptr, MPI_Win* win) {
  return win_allocate("MPI_Win_allocate_shared_c", size, disp_unit, info, comm, baseptr, win, true);
}
FERRY_ENTRY(Win_allocate_shared_c)

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  api::Call call("MPI_Win_create_dynamic");
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(win, "win")) return call.raise();
  const Info* hints = api::checked_hints(call, info);
  if (hints == nullptr) return call.raise();
  rma::Window* w = nullptr;
  Err e = rma::create_dynamic(c, hints, &w);
  *win = w != nullptr ? w->handle : MPI_WIN_NULL;
  return call.result(std::move(e));
}
FERRY_ENTRY(Win_create_dynamic)

extern "C" int PMPI_Win_free(MPI_Win* win) {
  api::Call call("MPI_Win_free");
  if (!call.initialized() || !call.not_null(win, "win")) return call.raise();
  rma::Window* w = call.win(*win);
  if (w == nullptr) return call.raise();
  // An open epoch fails the call and keeps the window (MPI-4.0 §12.2.5).
  if (w->epochs.locks_held > 0 || w->epochs.lock_all || w->epochs.started || w->epochs.posted)
    return call.result(fail(MPI_ERR_RMA_SYNC, "an epoch is still open on the window (unlock, complete or wait "
                                              "first)"));
  Err e = rma::free_window(w);
  call.forget_win();
  *win = MPI_WIN_NULL;
  return call.result(std::move(e));
}
FERRY_ENTRY(Win_free)

extern "C" int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  api::Call call("MPI_Win_attach");
  rma::Window* w = call.win(win);
  if (w == nullptr || !checked_size(call, size)) return call.raise();
  if (base == nullptr && size > 0) {
    call.fail(MPI_ERR_BASE, "base is NULL with size %ld", static_cast<long>(size));
    return call.raise();
  }
  return call.result(rma::attach(*w, base, size));
}
FERRY_ENTRY(Win_attach)

extern "C" int PMPI_Win_detach(MPI_Win win, const void* base) {
  api::Call call("MPI_Win_detach");
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  return call.result(rma::detach(*w, base));
}
FERRY_ENTRY(Win_detach)

extern "C" int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  MPI_Aint unit = 0;
  int rc = shared_query("MPI_Win_shared_query", win, rank, size, disp_unit != nullptr ? &unit : nullptr, baseptr);
  if (rc == MPI_SUCCESS) *disp_unit = static_cast<int>(unit);
  return rc;
}
FERRY_ENTRY(Win_shared_query)

extern "C" int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}
FERRY_ENTRY(Win_shared_query_c)

extern "C" int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  api::Call call("MPI_Win_get_group");
  rma::Window* w = call.win(win);
  if (w == nullptr || !call.not_null(group, "group")) return call.raise();
  groups::retain(w->comm->group);
  *group = w->comm->group->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_get_group)

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  api::Call call("MPI_Win_get_info");
  rma::Window* w = call.win(win);
  if (w == nullptr || !call.not_null(info_used, "info_used")) return call.raise();
  *info_used = infos::create(w->info);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_get_info)

extern "C" int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  api::Call call("MPI_Win_set_info");
  rma::Window* w = call.win(win);
  if (w == nullptr) return call.raise();
  const Info* hints = api::checked_hints(call, info);
  if (hints == nullptr) return call.raise();
  rma::set_hints(*w, *hints);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_set_info)

extern "C" int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  api::Call call("MPI_Win_set_name");
  rma::Window* w = call.win(win);
  if (w == nullptr || !call.not_null(win_name, "win_name")) return call.raise();
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_set_name)

extern "C" int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  api::Call call("MPI_Win_get_name");
  rma::Window* w = call.win(win);
  if (w == nullptr || !call.not_null(win_name, "win_name") || !call.not_null(resultlen, "resultlen"))
    return call.raise();
  std::memcpy(win_name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(Win_get_name)
