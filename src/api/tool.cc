// The MPI tool information interface (MPI-3.1 §14.3): control variables,
// categories, and performance-variable sessions (base/tool_variables.h says
// what Ferry exposes). MPI_T calls return their error codes directly, never
// through an error handler (§14.3.9), and work before MPI_Init and after
// MPI_Finalize.
#include <mutex>
#include <set>
#include <string>

#include "api/api.h"
#include "base/tool_variables.h"

struct MPIR_T_cvar_handle_s {
  int index;
};
struct MPIR_T_pvar_session_s {
  int unused;
};

using namespace ferry;

namespace {

// Handles and sessions this library gave out, so that a stale or foreign one
// is an error rather than a crash.
struct Live {
  std::mutex mutex;
  std::set<const void*> handles;
};
Live live;

bool is_live(const void* p) {
  std::lock_guard lock(live.mutex);
  return p != nullptr && live.handles.count(p) != 0;
}

template <class T>
T* make_live() {
  T* p = new T{};
  std::lock_guard lock(live.mutex);
  live.handles.insert(p);
  return p;
}

template <class T>
bool release(T* p) {
  std::lock_guard lock(live.mutex);
  if (p == nullptr || live.handles.erase(p) == 0) return false;
  delete p;
  return true;
}

}  // namespace

#define FERRY_T_REQUIRE_INIT() \
  if (!tool::initialized()) return MPI_T_ERR_NOT_INITIALIZED

extern "C" int PMPI_T_init_thread(int required, int* provided) {
  if (provided == nullptr) return MPI_ERR_ARG;
  tool::init();
  // Every MPI_T function may be called from any thread.
  *provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                                                                  : required;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_init_thread)

extern "C" int PMPI_T_finalize(void) { return tool::finalize() ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED; }
FERRY_WEAK_ALIAS(T_finalize)

// ---- Control variables --------------------------------------------------------

extern "C" int PMPI_T_cvar_get_num(int* num_cvar) {
  FERRY_T_REQUIRE_INIT();
  if (num_cvar == nullptr) return MPI_ERR_ARG;
  *num_cvar = tool::control_variable_count();
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_cvar_get_num)

extern "C" int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                                    MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  FERRY_T_REQUIRE_INIT();
  const tool::ControlVariable* v = tool::control_variable(cvar_index);
  if (v == nullptr) return MPI_T_ERR_INVALID_INDEX;
  tool::copy_out(v->name, name, name_len);
  tool::copy_out(v->doc, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (datatype) *datatype = v->type;
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope) *scope = MPI_T_SCOPE_READONLY;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_cvar_get_info)

extern "C" int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  FERRY_T_REQUIRE_INIT();
  if (name == nullptr || cvar_index == nullptr) return MPI_ERR_ARG;
  int index = tool::control_variable_index(name);
  if (index < 0) return MPI_T_ERR_INVALID_NAME;
  *cvar_index = index;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_cvar_get_index)

extern "C" int PMPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count) {
  (void)obj_handle;  // no variable is bound to an object
  FERRY_T_REQUIRE_INIT();
  const tool::ControlVariable* v = tool::control_variable(cvar_index);
  if (v == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_ERR_ARG;
  MPIR_T_cvar_handle_s* h = make_live<MPIR_T_cvar_handle_s>();
  h->index = cvar_index;
  *handle = h;
  *count = v->count;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_cvar_handle_alloc)

extern "C" int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  FERRY_T_REQUIRE_INIT();
  if (handle == nullptr || !release(*handle)) return MPI_T_ERR_INVALID_HANDLE;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_cvar_handle_free)

extern "C" int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  FERRY_T_REQUIRE_INIT();
  if (!is_live(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_ERR_ARG;
  tool::read_control_variable(handle->index, buf);
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_cvar_read)

// Settings are read once at start-up: changing one later would not act.
extern "C" int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  FERRY_T_REQUIRE_INIT();
  if (!is_live(handle)) return MPI_T_ERR_INVALID_HANDLE;
  (void)buf;
  return MPI_T_ERR_CVAR_SET_NEVER;
}
FERRY_WEAK_ALIAS(T_cvar_write)

// ---- Enumerations: none --------------------------------------------------------

extern "C" int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  (void)enumtype, (void)num, (void)name, (void)name_len;
  FERRY_T_REQUIRE_INIT();
  return MPI_T_ERR_INVALID_HANDLE;
}
FERRY_WEAK_ALIAS(T_enum_get_info)

extern "C" int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  (void)enumtype, (void)index, (void)value, (void)name, (void)name_len;
  FERRY_T_REQUIRE_INIT();
  return MPI_T_ERR_INVALID_HANDLE;
}
FERRY_WEAK_ALIAS(T_enum_get_item)

// ---- Categories: one, "ferry", with every control variable ------------------------

extern "C" int PMPI_T_category_get_num(int* num_cat) {
  FERRY_T_REQUIRE_INIT();
  if (num_cat == nullptr) return MPI_ERR_ARG;
  *num_cat = 1;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_category_get_num)

extern "C" int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len,
                                        int* num_cvars, int* num_pvars, int* num_categories) {
  FERRY_T_REQUIRE_INIT();
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  tool::copy_out(tool::kCategoryName, name, name_len);
  tool::copy_out(tool::kCategoryDoc, desc, desc_len);
  if (num_cvars) *num_cvars = tool::control_variable_count();
  if (num_pvars) *num_pvars = 0;
  if (num_categories) *num_categories = 0;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_category_get_info)

extern "C" int PMPI_T_category_get_index(const char* name, int* cat_index) {
  FERRY_T_REQUIRE_INIT();
  if (name == nullptr || cat_index == nullptr) return MPI_ERR_ARG;
  if (std::string(name) != tool::kCategoryName) return MPI_T_ERR_INVALID_NAME;
  *cat_index = 0;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_category_get_index)

extern "C" int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  FERRY_T_REQUIRE_INIT();
  if (cat_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (len > 0 && indices == nullptr) return MPI_ERR_ARG;
  for (int i = 0; i < len && i < tool::control_variable_count(); ++i) indices[i] = i;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_category_get_cvars)

extern "C" int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  (void)len, (void)indices;
  FERRY_T_REQUIRE_INIT();
  return cat_index == 0 ? MPI_SUCCESS : MPI_T_ERR_INVALID_INDEX;
}
FERRY_WEAK_ALIAS(T_category_get_pvars)

extern "C" int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  (void)len, (void)indices;
  FERRY_T_REQUIRE_INIT();
  return cat_index == 0 ? MPI_SUCCESS : MPI_T_ERR_INVALID_INDEX;
}
FERRY_WEAK_ALIAS(T_category_get_categories)

// The categories never change while the process runs.
extern "C" int PMPI_T_category_changed(int* update_number) {
  FERRY_T_REQUIRE_INIT();
  if (update_number == nullptr) return MPI_ERR_ARG;
  *update_number = 0;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_category_changed)

// ---- Performance variables: none yet; sessions work ---------------------------------

extern "C" int PMPI_T_pvar_get_num(int* num_pvar) {
  FERRY_T_REQUIRE_INIT();
  if (num_pvar == nullptr) return MPI_ERR_ARG;
  *num_pvar = 0;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_pvar_get_num)

extern "C" int PMPI_T_pvar_get_info(int pvar_index, char*, int*, int*, int*, MPI_Datatype*, MPI_T_enum*, char*, int*,
                                    int*, int*, int*, int*) {
  (void)pvar_index;
  FERRY_T_REQUIRE_INIT();
  return MPI_T_ERR_INVALID_INDEX;
}
FERRY_WEAK_ALIAS(T_pvar_get_info)

extern "C" int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  (void)var_class, (void)pvar_index;
  FERRY_T_REQUIRE_INIT();
  if (name == nullptr) return MPI_ERR_ARG;
  return MPI_T_ERR_INVALID_NAME;
}
FERRY_WEAK_ALIAS(T_pvar_get_index)

extern "C" int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  FERRY_T_REQUIRE_INIT();
  if (session == nullptr) return MPI_ERR_ARG;
  *session = make_live<MPIR_T_pvar_session_s>();
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_pvar_session_create)

extern "C" int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  FERRY_T_REQUIRE_INIT();
  if (session == nullptr || !release(*session)) return MPI_T_ERR_INVALID_SESSION;
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(T_pvar_session_free)

extern "C" int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void*, MPI_T_pvar_handle*, int*) {
  (void)pvar_index;
  FERRY_T_REQUIRE_INIT();
  if (!is_live(session)) return MPI_T_ERR_INVALID_SESSION;
  return MPI_T_ERR_INVALID_INDEX;
}
FERRY_WEAK_ALIAS(T_pvar_handle_alloc)

namespace {

// With no variables there are no handles: only MPI_T_PVAR_ALL_HANDLES, which
// then names none, is valid where the standard allows it.
int on_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_allowed) {
  FERRY_T_REQUIRE_INIT();
  if (!is_live(session)) return MPI_T_ERR_INVALID_SESSION;
  if (all_allowed && handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
  return MPI_T_ERR_INVALID_HANDLE;
}

}  // namespace

extern "C" int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  return on_handle(session, handle ? *handle : MPI_T_PVAR_HANDLE_NULL, false);
}
FERRY_WEAK_ALIAS(T_pvar_handle_free)

extern "C" int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return on_handle(session, handle, true);
}
FERRY_WEAK_ALIAS(T_pvar_start)

extern "C" int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return on_handle(session, handle, true);
}
FERRY_WEAK_ALIAS(T_pvar_stop)

extern "C" int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return on_handle(session, handle, true);
}
FERRY_WEAK_ALIAS(T_pvar_reset)

extern "C" int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void*) {
  return on_handle(session, handle, false);
}
FERRY_WEAK_ALIAS(T_pvar_read)

extern "C" int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void*) {
  return on_handle(session, handle, false);
}
FERRY_WEAK_ALIAS(T_pvar_readreset)

extern "C" int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void*) {
  return on_handle(session, handle, false);
}
FERRY_WEAK_ALIAS(T_pvar_write)
