// What the MPI_T shims share (api/tool.cc, tool_pvar.cc, tool_event.cc):
// MPI_T calls return their error codes directly, never through an error
// handler (MPI-4.0 §15.3.10), and check the handles they are given against
// those this library gave out, so that a stale or foreign one is an error
// rather than a crash.
#pragma once

#include <mutex>
#include <set>

#include "base/tool_variables.h"

namespace ferry::api::tool_handles {

struct Live {
  std::mutex mutex;
  std::set<const void*> handles;
};
inline Live live;

inline bool is_live(const void* p) {
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

}  // namespace ferry::api::tool_handles

#define FERRY_T_REQUIRE_INIT() \
  if (!::ferry::tool::initialized()) return MPI_T_ERR_NOT_INITIALIZED
