#include "base/tool_variables.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>
#include <vector>

#include "common/config.h"

namespace ferry::tool {
namespace {

// Longest string value a tool reads (MPI_CHAR variables); settings are short.
constexpr int kStringCount = 256;

std::mutex mutex;
int init_depth = 0;

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
                                  numeric ? 1 : kStringCount});
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
