#include "base/tool_variables.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/tool_categories.h"
#include "common/config.h"
#include "common/debug.h"
#include "progress/progress.h"

namespace ferry::tool {
namespace {

// Longest string value a tool reads (MPI_CHAR variables); settings are short.
constexpr int kStringCount = 256;

std::mutex mutex;
int init_depth = 0;

// Settings that may change while the process runs, and why that is safe:
// FERRY_DEBUG only selects which one-line facts print (debug::configure
// swaps one word); the wait settings only bound how long a waiting call
// spins, yields or sleeps, which the progress engine reads at every wait.
bool writable(std::string_view name) {
  return name == "FERRY_DEBUG" || name == "FERRY_SPIN_US" || name == "FERRY_YIELD_US" || name == "FERRY_SLEEP_MS";
}

int category_of(std::string_view name) {
  auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (has("_ALGORITHM") || has("FERRY_COLL_")) return kColl;
  if (has("FERRY_SHM_") || has("FERRY_TCP_") || name == "FERRY_TRANSPORTS" || name == "FERRY_CONNECT_TIMEOUT")
    return kTransport;
  if (has("CHECKPOINT") || has("RESTART")) return kCheckpoint;
  if (has("FERRY_LAUNCH_")) return kLaunch;
  return kGeneral;
}

const std::vector<ControlVariable>& variables() {
  static const std::vector<ControlVariable> table = [] {
    std::vector<ControlVariable> t;
    for (const config::Setting& s : config::all_settings()) {
      bool numeric = false;
      if (!s.default_value.empty()) {
        // A default that parses as an integer marks a numeric setting.
        numeric = std::all_of(s.default_value.begin(), s.default_value.end(),
                              [](char c) { return (c >= '0' && c <= '9') || c == 'k' || c == 'm' || c == 'g'; }) &&
                  s.default_value[0] >= '0' && s.default_value[0] <= '9';
      }
      t.push_back(ControlVariable{std::string(s.name), std::string(s.doc), numeric ? MPI_INT : MPI_CHAR,
                                  numeric ? 1 : kStringCount, category_of(s.name),
                                  writable(s.name) ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_READONLY});
    }
    return t;
  }();
  return table;
}

}  // namespace

void init() {
  std::lock_guard lock(mutex);
  ++init_depth;
}

bool finalize() {
  std::lock_guard lock(mutex);
  if (init_depth == 0) return false;
  --init_depth;
  return true;
}

bool initialized() {
  std::lock_guard lock(mutex);
  return init_depth > 0;
}

int control_variable_count() { return static_cast<int>(variables().size()); }

const ControlVariable* control_variable(int index) {
  if (index < 0 || index >= control_variable_count()) return nullptr;
  return &variables()[static_cast<size_t>(index)];
}

int control_variable_index(const std::string& name) {
  const auto& t = variables();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name == name) return static_cast<int>(i);
  return -1;
}

void read_control_variable(int index, void* buffer) {
  const ControlVariable& v = variables()[static_cast<size_t>(index)];
  if (v.type == MPI_INT) {
    int64_t value = config::integer(v.name);
    *static_cast<int*>(buffer) = static_cast<int>(std::clamp<int64_t>(value, INT_MIN, INT_MAX));
    return;
  }
  std::string value = config::value(v.name);
  char* out = static_cast<char*>(buffer);
  size_t n = std::min(value.size(), static_cast<size_t>(v.count - 1));
  std::memcpy(out, value.data(), n);
  out[n] = '\0';
}

int write_control_variable(int index, const void* buffer, bool running) {
  const ControlVariable& v = variables()[static_cast<size_t>(index)];
  if (v.scope == MPI_T_SCOPE_READONLY) return MPI_T_ERR_CVAR_SET_NEVER;
  std::string text;
  if (v.type == MPI_INT) {
    int value = *static_cast<const int*>(buffer);
    if (value < 0) return MPI_T_ERR_INVALID;
    text = std::to_string(value);
  } else {
    const char* in = static_cast<const char*>(buffer);
    const void* end = std::memchr(in, '\0', static_cast<size_t>(v.count));
    if (end == nullptr) return MPI_T_ERR_INVALID;
    text.assign(in, static_cast<const char*>(end));
  }
  config::set(v.name, text);
  if (v.name == "FERRY_DEBUG") {
    debug::configure();
  } else if (running) {
    progress::Lock lock;
    progress::set_wait_policy(progress::wait_policy(), static_cast<int>(config::integer("FERRY_SPIN_US")),
                              static_cast<int>(config::integer("FERRY_SLEEP_MS")));
  }
  return MPI_SUCCESS;
}

void copy_out(const std::string& text, char* buffer, int* length) {
  if (length == nullptr) return;
  if (buffer != nullptr && *length > 0) {
    size_t n = std::min(text.size(), static_cast<size_t>(*length - 1));
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  *length = static_cast<int>(text.size()) + 1;
}

}  // namespace ferry::tool
