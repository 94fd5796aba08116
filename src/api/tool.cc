// The MPI tool information interface (MPI-4.0 §15.3): initialization,
// control variables and categories (base/tool_variables.h and
// base/tool_categories.h say what Ferry exposes); performance variables are
// in tool_pvar.cc, events in tool_event.cc. MPI_T works before MPI_Init and
// after MPI_Finalize.
#include <string>
#include <vector>

#include "api/api.h"
#include "api/tool.h"
#include "base/tool_categories.h"
#include "runtime/runtime.h"

struct MPIR_T_cvar_handle_s {
  int index;
};

using namespace ferry;
using namespace ferry::api::tool_handles;

extern "C" int PMPI_T_init_thread(int required, int* provided) {
  if (provided == nullptr) return MPI_ERR_ARG;
  tool::init();
  // Every MPI_T function may be called from any thread.
  *provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                                                                  : required;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_init_thread)

extern "C" int PMPI_T_finalize(void) { return tool::finalize() ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED; }
FERRY_ENTRY(T_finalize)

// ---- Control variables --------------------------------------------------------

extern "C" int PMPI_T_cvar_get_num(int* num_cvar) {
  FERRY_T_REQUIRE_INIT();
  if (num_cvar == nullptr) return MPI_ERR_ARG;
  *num_cvar = tool::control_variable_count();
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_cvar_get_num)

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
  if (scope) *scope = v->scope;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_cvar_get_info)

extern "C" int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  FERRY_T_REQUIRE_INIT();
  if (name == nullptr || cvar_index == nullptr) return MPI_ERR_ARG;
  int index = tool::control_variable_index(name);
  if (index < 0) return MPI_T_ERR_INVALID_NAME;
  *cvar_index = index;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_cvar_get_index)

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
FERRY_ENTRY(T_cvar_handle_alloc)

extern "C" int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  FERRY_T_REQUIRE_INIT();
  if (handle == nullptr || !release(*handle)) return MPI_T_ERR_INVALID_HANDLE;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_cvar_handle_free)

extern "C" int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  FERRY_T_REQUIRE_INIT();
  if (!is_live(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_ERR_ARG;
  tool::read_control_variable(handle->index, buf);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_cvar_read)

// base/tool_variables.h says which settings may change while the process runs.
extern "C" int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  FERRY_T_REQUIRE_INIT();
  if (!is_live(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_ERR_ARG;
  return tool::write_control_variable(handle->index, buf, runtime::initialized());
}
FERRY_ENTRY(T_cvar_write)

// ---- Enumerations: none --------------------------------------------------------

extern "C" int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  (void)enumtype, (void)num, (void)name, (void)name_len;
  FERRY_T_REQUIRE_INIT();
  return MPI_T_ERR_INVALID_HANDLE;
}
FERRY_ENTRY(T_enum_get_info)

extern "C" int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  (void)enumtype, (void)index, (void)value, (void)name, (void)name_len;
  FERRY_T_REQUIRE_INIT();
  return MPI_T_ERR_INVALID_HANDLE;
}
FERRY_ENTRY(T_enum_get_item)

// ---- Categories (base/tool_categories.h) ---------------------------------------------

namespace {

bool valid_category(int index) { return index >= 0 && index < tool::kCategories; }

// Fills `indices` with at most `len` of `members` (MPI-4.0 §15.3.9).
int list(const std::vector<int>& members, int len, int indices[]) {
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_ERR_ARG;
  for (int i = 0; i < len && i < static_cast<int>(members.size()); ++i) indices[i] = members[static_cast<size_t>(i)];
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_T_category_get_num(int* num_cat) {
  FERRY_T_REQUIRE_INIT();
  if (num_cat == nullptr) return MPI_ERR_ARG;
  *num_cat = tool::kCategories;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_category_get_num)

extern "C" int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len,
                                        int* num_cvars, int* num_pvars, int* num_categories) {
  FERRY_T_REQUIRE_INIT();
  if (!valid_category(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  tool::copy_out(tool::category(cat_index).name, name, name_len);
  tool::copy_out(tool::category(cat_index).doc, desc, desc_len);
  if (num_cvars) *num_cvars = static_cast<int>(tool::category_cvars(cat_index).size());
  if (num_pvars) *num_pvars = static_cast<int>(tool::category_pvars(cat_index).size());
  if (num_categories) *num_categories = static_cast<int>(tool::subcategories(cat_index).size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_category_get_info)

extern "C" int PMPI_T_category_get_index(const char* name, int* cat_index) {
  FERRY_T_REQUIRE_INIT();
  if (name == nullptr || cat_index == nullptr) return MPI_ERR_ARG;
  int index = tool::category_index(name);
  if (index < 0) return MPI_T_ERR_INVALID_NAME;
  *cat_index = index;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_category_get_index)

extern "C" int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  FERRY_T_REQUIRE_INIT();
  if (!valid_category(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  return list(tool::category_cvars(cat_index), len, indices);
}
FERRY_ENTRY(T_category_get_cvars)

extern "C" int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  FERRY_T_REQUIRE_INIT();
  if (!valid_category(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  return list(tool::category_pvars(cat_index), len, indices);
}
FERRY_ENTRY(T_category_get_pvars)

extern "C" int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  FERRY_T_REQUIRE_INIT();
  if (!valid_category(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  return list(tool::subcategories(cat_index), len, indices);
}
FERRY_ENTRY(T_category_get_categories)

extern "C" int PMPI_T_category_get_num_events(int cat_index, int* num_events) {
  FERRY_T_REQUIRE_INIT();
  if (!valid_category(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  if (num_events == nullptr) return MPI_ERR_ARG;
  *num_events = static_cast<int>(tool::category_events(cat_index).size());
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_category_get_num_events)

extern "C" int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  FERRY_T_REQUIRE_INIT();
  if (!valid_category(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  return list(tool::category_events(cat_index), len, indices);
}
FERRY_ENTRY(T_category_get_events)

// The variables, events and categories are all known when the library is
// loaded and never change (base/tool_categories.h): the update number
// stays the same, so a tool's cached lists stay valid.
extern "C" int PMPI_T_category_changed(int* update_number) {
  FERRY_T_REQUIRE_INIT();
  if (update_number == nullptr) return MPI_ERR_ARG;
  *update_number = 0;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_category_changed)
