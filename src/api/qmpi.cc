// QMPI, MPICH 4.0's tool interface (api/qmpi.h): the tool list, registration, attaching the tools,
// and the six QMPI_ functions tools call.
//
// The QMPI_ functions return their error code without calling an error handler, as MPICH's do:
// tools call them from constructors and init functions, before MPI_Init, when there is none.
#include "api/qmpi.h"

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"

namespace ferry::qmpi {
namespace {

// Stands in every slot of `first` until the tools are attached; never called.
void attach_pending() {}

// Tool ids run from 1; 0 is the MPI library, as in MPICH.
struct Tools {
  std::vector<std::string> names;            // [id]; names[0] unused
  std::vector<void (*)(int)> init;           // [id]: from QMPI_Register_tool_name
  std::vector<void*> storage;                // [id]: from QMPI_Register_tool_storage
  std::vector<Function> functions;           // [id * MPI_LAST_FUNC_T + function]
  bool attached = false;
  bool profile = false;                      // the last id is FERRY_PROFILE's own tool
  int count() const { return static_cast<int>(names.size()) - 1; }
  Function& function(int id, int f) { return functions[static_cast<size_t>(id) * MPI_LAST_FUNC_T + f]; }
};

// The list is read at the first QMPI call or MPI call, whichever comes first: from the tools'
// constructors, which run after libmpi's own.
Tools& tools() {
  static Tools* t = [] {
    auto* t = new Tools;  // never freed: tools may call MPI from destructors
    t->names.emplace_back();
    std::string list = config::value("FERRY_QMPI_TOOL_LIST");
    for (size_t start = 0; start <= list.size();) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) t->names.push_back(list.substr(start, end - start));
      start = end + 1;
    }
    t->init.assign(t->names.size(), nullptr);
    // FERRY_PROFILE's counting is a tool of its own, last in the list so that it times the
    // implementation alone and sees the calls the program's tools pass on. When it is unset it is
    // not in the list, and an MPI call costs what it costs without tools.
    if (!config::value("FERRY_PROFILE").empty()) {
      t->names.push_back("ferry_profile");
      t->init.push_back(&attach_profile);
      t->profile = true;
      profile_tool_id = t->count();
    }
    t->storage.assign(t->names.size(), nullptr);
    t->functions.assign(t->names.size() * MPI_LAST_FUNC_T, nullptr);
    return t;
  }();
  return *t;
}

std::mutex tools_mutex;  // registration may come from several threads' constructors of dlopened code
std::atomic<bool> attached{false};  // once set, the cold path skips attach() and its thread-local
thread_local bool attaching = false;
thread_local void* calling_address = nullptr;

// The slot of `function` in `first`: the lowest id that registered it, else nullptr.
void publish(Tools& t, int function) {
  first.tool_id[function] = 0;
  Function found = nullptr;
  for (int id = 1; id <= t.count(); ++id) {
    if (t.function(id, function) != nullptr) {
      found = t.function(id, function);
      first.tool_id[function] = id;
      break;
    }
  }
  std::atomic_ref<Function>(first.function[function]).store(found, std::memory_order_release);
}

void attach() {
  static std::once_flag once;
  std::call_once(once, [] {
    Tools& t = tools();
    attaching = true;
    for (int id = 1; id <= t.count(); ++id) {
      void (*init)(int);
      {
        std::lock_guard lock(tools_mutex);
        init = t.init[id];
      }
      if (init == nullptr) {
        std::fprintf(stderr,
                     "ferry: QMPI: tool \"%s\" (id %d of the tool list, FERRY_QMPI_TOOL_LIST or "
                     "MPIR_CVAR_QMPI_TOOL_LIST) was not registered (QMPI_Register_tool_name); calls pass it by\n",
                     t.names[id].c_str(), id);
        continue;
      }
      init(id);
    }
    attaching = false;
    std::lock_guard lock(tools_mutex);
    t.attached = true;
    for (int f = 0; f < MPI_LAST_FUNC_T; ++f) publish(t, f);
    attached.store(true, std::memory_order_release);
  });
}

bool valid_tool(const Tools& t, int id, bool library_too) { return id >= (library_too ? 0 : 1) && id <= t.count(); }
bool valid_function(int f) { return f >= 0 && f < MPI_LAST_FUNC_T; }

}  // namespace

int profile_tool_id = -1;

constinit FirstTools first = [] {
  FirstTools f{};
  for (Function& slot : f.function) slot = &attach_pending;
  return f;
}();

Hook first_tool(int function) {
  // A tool's init function that calls MPI reaches the implementation: its own tools are not
  // attached yet.
  if (!attached.load(std::memory_order_acquire)) {
    if (attaching) return {nullptr, 0};
    attach();
  }
  Function f = std::atomic_ref<Function>(first.function[function]).load(std::memory_order_acquire);
  return {f, first.tool_id[function]};
}

QMPI_Context context() {
  static void** const storage = tools().storage.data();  // sized once, when the list is read
  return QMPI_Context{storage};
}

CallerScope::CallerScope(void* caller) : previous_(calling_address) { calling_address = caller; }
CallerScope::~CallerScope() { calling_address = previous_; }

}  // namespace ferry::qmpi

using namespace ferry::qmpi;

extern "C" int QMPI_Register_tool_name(const char* tool_name, void (*init_function_ptr)(int tool_id)) {
  if (tool_name == nullptr || init_function_ptr == nullptr) return MPI_ERR_ARG;
  Tools& t = tools();
  if (t.count() == (t.profile ? 1 : 0)) return MPI_SUCCESS;  // no tool list: nothing to attach (MPICH answers so too)
  std::lock_guard lock(tools_mutex);
  bool found = false;
  // Every instance of the name in the list: "a:a" runs the same tool twice, as ids 1 and 2.
  for (int id = 1; id <= t.count(); ++id) {
    if (t.names[id] == tool_name && t.init[id] == nullptr) {
      t.init[id] = init_function_ptr;
      found = true;
    }
  }
  return found ? MPI_SUCCESS : MPI_ERR_OTHER;  // not in the list, or registered already
}

extern "C" int QMPI_Register_tool_storage(int tool_id, void* tool_storage) {
  Tools& t = tools();
  if (!valid_tool(t, tool_id, false)) return MPI_ERR_ARG;
  std::lock_guard lock(tools_mutex);
  t.storage[tool_id] = tool_storage;
  return MPI_SUCCESS;
}

extern "C" int QMPI_Register_function(int calling_tool_id, enum QMPI_Functions_enum function_enum,
                                      void (*function_ptr)(void)) {
  Tools& t = tools();
  if (!valid_tool(t, calling_tool_id, false) || !valid_function(function_enum)) return MPI_ERR_ARG;
  std::lock_guard lock(tools_mutex);
  std::atomic_ref<Function>(t.function(calling_tool_id, function_enum)).store(function_ptr, std::memory_order_release);
  if (t.attached) publish(t, function_enum);  // a tool changing its mind later
  return MPI_SUCCESS;
}

extern "C" int QMPI_Get_function(int calling_tool_id, enum QMPI_Functions_enum function_enum,
                                 void (**function_ptr)(void), int* next_tool_id) {
  Tools& t = tools();
  if (!valid_tool(t, calling_tool_id, true) || !valid_function(function_enum) || function_ptr == nullptr ||
      next_tool_id == nullptr)
    return MPI_ERR_ARG;
  // Tools call this in every intercepted call, from any thread: no lock. The table never moves
  // (sized when the list is read); a registration stores its slot atomically (release).
  for (int id = calling_tool_id + 1; id <= t.count(); ++id) {
    if (Function f = std::atomic_ref<Function>(t.function(id, function_enum)).load(std::memory_order_acquire)) {
      *function_ptr = f;
      *next_tool_id = id;
      return MPI_SUCCESS;
    }
  }
  *function_ptr = implementations[function_enum];
  *next_tool_id = 0;
  return MPI_SUCCESS;
}

extern "C" int QMPI_Get_tool_storage(QMPI_Context context, int tool_id, void** storage) {
  Tools& t = tools();
  if (!valid_tool(t, tool_id, true) || storage == nullptr) return MPI_ERR_ARG;
  void** stack = context.storage_stack != nullptr ? context.storage_stack : t.storage.data();
  *storage = stack[tool_id];
  return MPI_SUCCESS;
}

// The address of the program's call of the MPI function being intercepted (the return address of
// that call), or NULL outside a tool's function. MPICH answers the same address as text, from
// backtrace_symbols; Ferry answers the address itself.
extern "C" int QMPI_Get_calling_address(QMPI_Context, void** address) {
  if (address == nullptr) return MPI_ERR_ARG;
  *address = calling_address;
  return MPI_SUCCESS;
}
