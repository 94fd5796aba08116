#include "rma/window.h"

#include "base/errhandler.h"
#include "base/handles.h"
#include "common/config.h"
#include "rma/active_message.h"
#include "rma/doorbell.h"

namespace ferry::rma {

bool same_host_direct() {
  static const bool allowed = [] {
    std::string transports = config::value("FERRY_TRANSPORTS");
    bool shm = false;
    size_t at = 0;
    while (at <= transports.size()) {
      size_t comma = transports.find(',', at);
      if (comma == std::string::npos) comma = transports.size();
      if (transports.compare(at, comma - at, "shm") == 0) shm = true;
      at = comma + 1;
    }
    return shm && config::flag("FERRY_RMA_SHM");
  }();
  return allowed;
}

bool attached(const std::vector<Region>& regions, uint64_t address, uint64_t bytes) {
  uint64_t at = address, end = address + bytes;
  while (at < end) {
    const Region* holder = nullptr;
    for (const Region& r : regions)
      if (at >= r.base && at - r.base < r.size) holder = &r;
    if (holder == nullptr) return false;
    at = holder->base + holder->size;
  }
  return true;
}

}  // namespace ferry::rma

namespace ferry::rma::windows {

namespace detail {
handle::Table<Window> live;
}
using detail::live;

bool add(Window* w) {
  uint32_t index = live.add(w);
  if (index == handle::Table<Window>::kFull) return false;
  w->handle = handle::make_dynamic(handle::Object::kWindow, index);
  return true;
}

std::atomic<uint64_t> retirements{0};

void remove(Window* w) {
  retirements.fetch_add(1, std::memory_order_relaxed);
  live.remove(handle::index_of(w->handle));
}

void finalize() {
  // A window the program never freed keeps its memory until exit, but its
  // service must not outlive the runtime it polls in.
  for (Window* w : live.all())
    if (w->service != nullptr) w->service->stop();
  doorbell::close();
}

int invoke_errhandler(Window* w, int code, const std::string& message) {
  if (w == nullptr) return errhandlers::invoke(nullptr, code, message);
  return errhandlers::invoke_window(w->errhandler, w->handle, code, message);
}

}  // namespace ferry::rma::windows
