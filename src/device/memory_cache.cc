#include "device/memory_cache.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>

namespace ferry::device {

namespace {

// The main thread's stack: the "[stack]" mapping of /proc/self/maps, and
// below it as far as RLIMIT_STACK lets it grow (at most 1 GiB).
void main_stack(uintptr_t* low, uintptr_t* high) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return;
  char line[512];
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    if (std::strstr(line, "[stack]") == nullptr) continue;
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
      rlimit limit{};
      uint64_t room = getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? limit.rlim_cur : 0;
      room = std::min<uint64_t>(std::max<uint64_t>(room, hi - lo), uint64_t{1} << 30);
      *low = hi > room ? hi - room : 0;
      *high = hi;
    }
    break;
  }
  std::fclose(maps);
}
}  // namespace

MemoryCache::MemoryCache(const Ops* ops) : ops_(ops) { main_stack(&stack_low_, &stack_high_); }

bool MemoryCache::stays_host(uintptr_t address) const {
  // glibc's sbrk(0) reads the break it keeps; no system call.
  auto brk_now = reinterpret_cast<uintptr_t>(sbrk(0));
  return address < brk_now || (address >= stack_low_ && address < stack_high_);
}

PointerInfo MemoryCache::ask(const void* p, int* error, bool remember_host) {
  ++queries_;
  PointerInfo info;
  if (int code = ops_->pointer_info(p, &info); code != 0) {
    *error = code;
    return PointerInfo{};  // not cached: the next call asks again
  }
  auto address = reinterpret_cast<uintptr_t>(p);
  if (info.memory == Memory::kHost) {
    if (!remember_host || !stays_host(address)) return info;
    uintptr_t granule = address >> kGranuleShift;
    host_granules_[slot_of(granule)].store(granule + 1, std::memory_order_release);
    return info;
  }
  if (info.size == 0) {  // a driver that gave no range: cache the byte alone
    info.base = address;
    info.size = 1;
  }
  // An allocation made where host granules were seen (their memory freed
  // and the addresses reused) must not be answered as host any more.
  for (uintptr_t g = info.base >> kGranuleShift, n = 0; g <= (info.base + info.size - 1) >> kGranuleShift; ++g) {
    if (host_granules_[slot_of(g)].load(std::memory_order_relaxed) == g + 1)
      host_granules_[slot_of(g)].store(0, std::memory_order_release);
    if (++n == kHostSlots) break;
  }
  allocations_[info.base] = info;
  return info;
}

PointerInfo MemoryCache::lookup(const void* p, int* error) {
  auto address = reinterpret_cast<uintptr_t>(p);
  if (known_host(p)) return PointerInfo{};
  std::lock_guard<std::mutex> hold(lock_);
  if (!allocations_.empty()) {
    auto it = allocations_.upper_bound(address);
    if (it != allocations_.begin()) {
      const PointerInfo& known = std::prev(it)->second;
      if (address - known.base < known.size) {
        uint64_t id = 0;
        if (ops_->buffer_id(p, &id) == 0 && id == known.buffer_id) return known;
        allocations_.erase(std::prev(it));  // freed, and maybe allocated again: ask
        return ask(p, error, /*remember_host=*/false);
      }
    }
  }
  return ask(p, error);
}

PointerInfo MemoryCache::refresh(const void* p, int* error) {
  auto address = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> hold(lock_);
  auto it = allocations_.upper_bound(address);
  if (it != allocations_.begin() && address - std::prev(it)->second.base < std::prev(it)->second.size)
    allocations_.erase(std::prev(it));
  return ask(p, error, /*remember_host=*/false);
}

void MemoryCache::clear() {
  std::lock_guard<std::mutex> hold(lock_);
  allocations_.clear();
  for (auto& g : host_granules_) g.store(0, std::memory_order_release);
}

size_t MemoryCache::allocations() const {
  std::lock_guard<std::mutex> hold(lock_);
  return allocations_.size();
}

}  // namespace ferry::device
