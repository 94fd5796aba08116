// MPI_T events and their sources (MPI-4.0 §15.3.8): base/tool_events.h says
// which events Ferry raises, what their records hold and when callbacks run.
#include <cstring>
#include <limits>

#include "api/api.h"
#include "api/tool.h"
#include "base/tool_events.h"

using namespace ferry;

namespace {

bool valid_safety(MPI_T_cb_safety s) {
  return s >= MPI_T_CB_REQUIRE_NONE && s <= MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
}

// Events and sources take no info keys: a tool's info is accepted and
// ignored, and the info "used" is MPI_INFO_NULL (none).
void no_info(MPI_Info* info) {
  if (info != nullptr) *info = MPI_INFO_NULL;
}

}  // namespace

#define FERRY_T_REQUIRE_HANDLE(h) \
  if (!tool::is_live_handle(h)) return MPI_T_ERR_INVALID_HANDLE

// ---- Sources -----------------------------------------------------------------------------

extern "C" int PMPI_T_source_get_num(int* num_sources) {
  FERRY_T_REQUIRE_INIT();
  if (num_sources == nullptr) return MPI_ERR_ARG;
  *num_sources = tool::kSourceCount;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_source_get_num)

extern "C" int PMPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc, int* desc_len,
                                      MPI_T_source_order* ordering, MPI_Count* ticks_per_second,
                                      MPI_Count* max_ticks, MPI_Info* info) {
  FERRY_T_REQUIRE_INIT();
  if (source_index < 0 || source_index >= tool::kSourceCount) return MPI_T_ERR_INVALID_INDEX;
  tool::copy_out(tool::kSourceName, name, name_len);
  tool::copy_out(tool::kSourceDoc, desc, desc_len);
  // Events are raised and delivered in the order they happen, each stamped
  // as it is raised.
  if (ordering) *ordering = MPI_T_SOURCE_ORDERED;
  if (ticks_per_second) *ticks_per_second = tool::kTicksPerSecond;
  if (max_ticks) *max_ticks = std::numeric_limits<MPI_Count>::max();
  no_info(info);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_source_get_info)

extern "C" int PMPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  FERRY_T_REQUIRE_INIT();
  if (source_index < 0 || source_index >= tool::kSourceCount) return MPI_T_ERR_INVALID_INDEX;
  if (timestamp == nullptr) return MPI_ERR_ARG;
  *timestamp = tool::source_timestamp();
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_source_get_timestamp)

// ---- Event types ---------------------------------------------------------------------------

extern "C" int PMPI_T_event_get_num(int* num_events) {
  FERRY_T_REQUIRE_INIT();
  if (num_events == nullptr) return MPI_ERR_ARG;
  *num_events = tool::event_type_count();
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_get_num)

// array_of_datatypes and array_of_displacements take at most *num_elements
// entries (MPI-4.0 §15.3.8); *num_elements is then the record's count.
extern "C" int PMPI_T_event_get_info(int event_index, char* name, int* name_len, int* verbosity,
                                     MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                                     int* num_elements, MPI_T_enum* enumtype, MPI_Info* info, char* desc,
                                     int* desc_len, int* bind) {
  FERRY_T_REQUIRE_INIT();
  const tool::EventType* t = tool::event_type(event_index);
  if (t == nullptr) return MPI_T_ERR_INVALID_INDEX;
  tool::copy_out(t->name, name, name_len);
  tool::copy_out(t->doc, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  int n = static_cast<int>(t->types.size());
  if (num_elements != nullptr) {
    for (int i = 0; i < *num_elements && i < n; ++i) {
      if (array_of_datatypes) array_of_datatypes[i] = t->types[static_cast<size_t>(i)];
      if (array_of_displacements) array_of_displacements[i] = t->displacements[static_cast<size_t>(i)];
    }
    *num_elements = n;
  }
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  no_info(info);
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_get_info)

extern "C" int PMPI_T_event_get_index(const char* name, int* event_index) {
  FERRY_T_REQUIRE_INIT();
  if (name == nullptr || event_index == nullptr) return MPI_ERR_ARG;
  int index = tool::event_type_index(name);
  if (index < 0) return MPI_T_ERR_INVALID_NAME;
  *event_index = index;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_get_index)

// ---- Registrations -------------------------------------------------------------------------

extern "C" int PMPI_T_event_handle_alloc(int event_index, void* obj_handle, MPI_Info info,
                                         MPI_T_event_registration* event_registration) {
  (void)obj_handle, (void)info;  // no event is bound to an object; no info keys
  FERRY_T_REQUIRE_INIT();
  if (tool::event_type(event_index) == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (event_registration == nullptr) return MPI_ERR_ARG;
  *event_registration = tool::register_handle(event_index);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_handle_alloc)

extern "C" int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info) {
  (void)info;
  FERRY_T_REQUIRE_INIT();
  FERRY_T_REQUIRE_HANDLE(event_registration);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_handle_set_info)

extern "C" int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info* info_used) {
  FERRY_T_REQUIRE_INIT();
  FERRY_T_REQUIRE_HANDLE(event_registration);
  if (info_used == nullptr) return MPI_ERR_ARG;
  no_info(info_used);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_handle_get_info)

extern "C" int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                              MPI_Info info, void* user_data,
                                              MPI_T_event_cb_function event_cb_function) {
  (void)info;
  FERRY_T_REQUIRE_INIT();
  FERRY_T_REQUIRE_HANDLE(event_registration);
  if (!valid_safety(cb_safety)) return MPI_T_ERR_INVALID;
  // A null function removes the callback of that level (MPI-4.0 §15.3.8).
  tool::set_callback(event_registration, cb_safety, event_cb_function, user_data);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_register_callback)

extern "C" int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                              MPI_Info info) {
  (void)info;
  FERRY_T_REQUIRE_INIT();
  FERRY_T_REQUIRE_HANDLE(event_registration);
  if (!valid_safety(cb_safety)) return MPI_T_ERR_INVALID;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_callback_set_info)

extern "C" int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                              MPI_Info* info_used) {
  FERRY_T_REQUIRE_INIT();
  FERRY_T_REQUIRE_HANDLE(event_registration);
  if (!valid_safety(cb_safety)) return MPI_T_ERR_INVALID;
  if (info_used == nullptr) return MPI_ERR_ARG;
  no_info(info_used);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_callback_get_info)

extern "C" int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                                MPI_T_event_dropped_cb_function dropped_cb_function) {
  FERRY_T_REQUIRE_INIT();
  FERRY_T_REQUIRE_HANDLE(event_registration);
  tool::set_dropped_handler(event_registration, dropped_cb_function);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_set_dropped_handler)

// No callback runs for the handle after this returns; free_cb_function, if
// given, runs before it returns (MPI-4.0 §15.3.8 allows it to run later).
extern "C" int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void* user_data,
                                        MPI_T_event_free_cb_function free_cb_function) {
  FERRY_T_REQUIRE_INIT();
  FERRY_T_REQUIRE_HANDLE(event_registration);
  tool::retire_handle(event_registration);
  if (free_cb_function != nullptr) free_cb_function(event_registration, MPI_T_CB_REQUIRE_NONE, user_data);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_handle_free)

// ---- One occurrence, inside a callback ------------------------------------------------------

extern "C" int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count* event_timestamp) {
  FERRY_T_REQUIRE_INIT();
  if (event_instance == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (event_timestamp == nullptr) return MPI_ERR_ARG;
  *event_timestamp = event_instance->timestamp;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_get_timestamp)

extern "C" int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int* source_index) {
  FERRY_T_REQUIRE_INIT();
  if (event_instance == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (source_index == nullptr) return MPI_ERR_ARG;
  *source_index = 0;
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_get_source)

extern "C" int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void* buffer) {
  FERRY_T_REQUIRE_INIT();
  if (event_instance == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  const tool::EventType& t = *tool::event_type(event_instance->event);
  if (element_index < 0 || element_index >= static_cast<int>(t.types.size())) return MPI_T_ERR_INVALID_INDEX;
  if (buffer == nullptr) return MPI_ERR_ARG;
  size_t i = static_cast<size_t>(element_index);
  size_t bytes = t.types[i] == MPI_INT ? sizeof(int) : sizeof(MPI_Count);
  std::memcpy(buffer, event_instance->data + t.displacements[i], bytes);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_read)

// The whole record, laid out as MPI_T_event_get_info describes it.
extern "C" int PMPI_T_event_copy(MPI_T_event_instance event_instance, void* buffer) {
  FERRY_T_REQUIRE_INIT();
  if (event_instance == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (buffer == nullptr) return MPI_ERR_ARG;
  std::memcpy(buffer, event_instance->data, tool::event_type(event_instance->event)->extent);
  return MPI_SUCCESS;
}
FERRY_ENTRY(T_event_copy)
