// MPI_T performance variables and their sessions (MPI-4.0 §15.3.7):
// base/tool_pvars.h says which variables there are and what a handle reads.
// A session owns its handles: each keeps its own start/stop state and its
// own view of a counter, so two sessions never disturb each other.
#include <algorithm>
#include <mutex>
#include <vector>

#include "api/api.h"
#include "api/tool.h"
#include "base/tool_pvars.h"

struct MPIR_T_pvar_handle_s {
  MPIR_T_pvar_session_s* session = nullptr;
  ferry::tool::PvarView view;
};
struct MPIR_T_pvar_session_s {
  std::mutex mutex;
  std::vector<MPIR_T_pvar_handle_s*> handles;
};

using namespace ferry;
using namespace ferry::api::tool_handles;

extern "C" int PMPI_T_pvar_get_num(int* num_pvar) {
  FERRY_T_REQUIRE_INIT();
  if (num_pvar == nullptr) return MPI_ERR_ARG;
  *num_pvar = tool::performance_variable_count();
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_get_num)

extern "C" int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                                    int* bind, int* readonly, int* continuous, int* atomic) {
  FERRY_T_REQUIRE_INIT();
  const tool::PerformanceVariable* v = tool::performance_variable(pvar_index);
  if (v == nullptr) return MPI_T_ERR_INVALID_INDEX;
  tool::copy_out(v->name, name, name_len);
  tool::copy_out(v->doc, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (var_class) *var_class = v->var_class;
  if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly) *readonly = v->readonly() ? 1 : 0;
  if (continuous) *continuous = v->continuous() ? 1 : 0;
  // No MPI_T_pvar_readreset is atomic with respect to the runtime's counting.
  if (atomic) *atomic = 0;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_get_info)

extern "C" int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  FERRY_T_REQUIRE_INIT();
  if (name == nullptr || pvar_index == nullptr) return MPI_ERR_ARG;
  int index = tool::performance_variable_index(name, var_class);
  if (index < 0) return MPI_T_ERR_INVALID_NAME;
  *pvar_index = index;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_get_index)

extern "C" int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  FERRY_T_REQUIRE_INIT();
  if (session == nullptr) return MPI_ERR_ARG;
  *session = make_live<MPIR_T_pvar_session_s>();
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_session_create)

// Freeing a session frees its handles (MPI-4.0 §15.3.7).
extern "C" int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  FERRY_T_REQUIRE_INIT();
  if (session == nullptr || !is_live(*session)) return MPI_T_ERR_INVALID_SESSION;
  {
    std::lock_guard lock((*session)->mutex);
    for (MPIR_T_pvar_handle_s* h : (*session)->handles) {
      tool::close_view(&h->view);
      release(h);
    }
    (*session)->handles.clear();
  }
  release(*session);
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_session_free)

extern "C" int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle,
                                        MPI_T_pvar_handle* handle, int* count) {
  (void)obj_handle;  // every variable is the process's (MPI_T_BIND_NO_OBJECT)
  FERRY_T_REQUIRE_INIT();
  if (!is_live(session)) return MPI_T_ERR_INVALID_SESSION;
  if (tool::performance_variable(pvar_index) == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_ERR_ARG;
  auto* h = make_live<MPIR_T_pvar_handle_s>();
  if (!tool::open_view(pvar_index, &h->view)) {
    release(h);
    return MPI_T_ERR_OUT_OF_HANDLES;
  }
  h->session = session;
  std::lock_guard lock(session->mutex);
  session->handles.push_back(h);
  *handle = h;
  *count = 1;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_handle_alloc)

namespace {

// A handle of this session, or MPI_T_PVAR_ALL_HANDLES where `all_allowed`.
int check(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_allowed) {
  FERRY_T_REQUIRE_INIT();
  if (!is_live(session)) return MPI_T_ERR_INVALID_SESSION;
  if (all_allowed && handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
  if (!is_live(handle) || handle->session != session) return MPI_T_ERR_INVALID_HANDLE;
  return MPI_SUCCESS;
}

const tool::PerformanceVariable& variable_of(MPI_T_pvar_handle h) {
  return *tool::performance_variable(h->view.index);
}

// MPI_T_pvar_start/stop/reset on one handle or on all of a session's: with
// MPI_T_PVAR_ALL_HANDLES the handles it cannot apply to are skipped
// (continuous ones for start/stop, read-only ones for reset).
template <class Apply, class Applies>
int on_handles(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int refusal, Applies applies, Apply apply) {
  if (int e = check(session, handle, true)) return e;
  std::lock_guard lock(session->mutex);
  if (handle != MPI_T_PVAR_ALL_HANDLES) {
    if (!applies(variable_of(handle))) return refusal;
    apply(&handle->view);
    return MPI_SUCCESS;
  }
  for (MPIR_T_pvar_handle_s* h : session->handles)
    if (applies(variable_of(h))) apply(&h->view);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  if (handle == nullptr) return MPI_ERR_ARG;
  if (int e = check(session, *handle, false)) return e;
  {
    std::lock_guard lock(session->mutex);
    auto& hs = session->handles;
    hs.erase(std::remove(hs.begin(), hs.end(), *handle), hs.end());
  }
  tool::close_view(&(*handle)->view);
  release(*handle);
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_handle_free)

extern "C" int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return on_handles(
      session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP, [](const tool::PerformanceVariable& v) { return !v.continuous(); },
      tool::start_view);
}
FERRY_ENTRY(T_pvar_start)

extern "C" int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return on_handles(
      session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP, [](const tool::PerformanceVariable& v) { return !v.continuous(); },
      tool::stop_view);
}
FERRY_ENTRY(T_pvar_stop)

extern "C" int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return on_handles(
      session, handle, MPI_T_ERR_PVAR_NO_WRITE, [](const tool::PerformanceVariable& v) { return !v.readonly(); },
      tool::reset_view);
}
FERRY_ENTRY(T_pvar_reset)

extern "C" int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  if (int e = check(session, handle, false)) return e;
  if (buf == nullptr) return MPI_ERR_ARG;
  std::lock_guard lock(session->mutex);
  *static_cast<unsigned long long*>(buf) = tool::read_view(handle->view);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_read)

extern "C" int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  if (int e = check(session, handle, false)) return e;
  if (buf == nullptr) return MPI_ERR_ARG;
  if (variable_of(handle).readonly()) return MPI_T_ERR_PVAR_NO_WRITE;
  std::lock_guard lock(session->mutex);
  *static_cast<unsigned long long*>(buf) = tool::read_view(handle->view);
  tool::reset_view(&handle->view);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_readreset)

extern "C" int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  if (int e = check(session, handle, false)) return e;
  if (buf == nullptr) return MPI_ERR_ARG;
  if (variable_of(handle).readonly()) return MPI_T_ERR_PVAR_NO_WRITE;
  std::lock_guard lock(session->mutex);
  tool::write_view(&handle->view, *static_cast<const unsigned long long*>(buf));
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_pvar_write)
