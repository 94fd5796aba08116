#include "transport/verbs/reg_cache.h"

#include <unistd.h>

#include "transport/verbs/memory_hooks.h"

namespace ferry::transport::verbs {
namespace {

uintptr_t page_bytes() {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return page;
}

}  // namespace

RegistrationCache::RegistrationCache(Device* device, size_t bound_bytes) : device_(device), bound_(bound_bytes) {}

RegistrationCache::~RegistrationCache() {
  for (auto& [start, e] : by_start_) {
    device_->deregister_memory(e->region);
    delete e;
  }
}

RegistrationCache::Entry* RegistrationCache::acquire(const void* address, size_t bytes, std::string* error) {
  memory_hooks::Busy busy;
  std::lock_guard<std::mutex> hold(lock_);
  uintptr_t begin = reinterpret_cast<uintptr_t>(address) & ~(page_bytes() - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(address) + bytes + page_bytes() - 1) & ~(page_bytes() - 1);
  if (caching()) {
    // Entries that start at or before `begin` and are no longer than the
    // longest one can cover the range: look back that far only.
    auto it = by_start_.upper_bound(begin);
    while (it != by_start_.begin()) {
      --it;
      Entry* e = it->second;
      if (e->start + largest_ < begin) break;
      if (e->start <= begin && e->start + e->bytes >= end) {
        if (e->users++ == 0) unused_.erase(e->lru);
        ++hits_;
        return e;
      }
    }
  }
  ++misses_;
  auto* e = new Entry;
  e->start = begin;
  e->bytes = end - begin;
  if (!device_->register_memory(reinterpret_cast<void*>(begin), e->bytes, &e->region, error)) {
    delete e;
    return nullptr;
  }
  e->users = 1;
  if (caching()) {
    by_start_.emplace(begin, e);
    cached_bytes_ += e->bytes;
    if (e->bytes > largest_) largest_ = e->bytes;
  }
  return e;
}

void RegistrationCache::release(Entry* e) {
  memory_hooks::Busy busy;
  std::lock_guard<std::mutex> hold(lock_);
  if (--e->users > 0) return;
  if (!caching() || e->stale) {
    device_->deregister_memory(e->region);
    delete e;
    return;
  }
  e->lru = unused_.insert(unused_.end(), e);
  trim();
}

void RegistrationCache::drop(Entry* e) {
  cached_bytes_ -= e->bytes;
  if (e->users > 0) {
    e->stale = true;  // the last release deregisters it
    return;
  }
  unused_.erase(e->lru);
  device_->deregister_memory(e->region);
  delete e;
}

void RegistrationCache::trim() {
  while (cached_bytes_ > bound_ && !unused_.empty()) {
    Entry* victim = unused_.front();
    for (auto it = by_start_.lower_bound(victim->start); it != by_start_.end(); ++it)
      if (it->second == victim) {
        by_start_.erase(it);
        break;
      }
    drop(victim);
  }
}

void RegistrationCache::invalidate(const void* address, size_t bytes) {
  memory_hooks::Busy busy;
  std::lock_guard<std::mutex> hold(lock_);
  if (by_start_.empty() || bytes == 0) return;
  uintptr_t begin = reinterpret_cast<uintptr_t>(address);
  uintptr_t end = begin + bytes;
  auto it = by_start_.lower_bound(begin > largest_ ? begin - largest_ : 0);
  while (it != by_start_.end() && it->first < end) {
    Entry* e = it->second;
    if (e->start + e->bytes > begin) {
      it = by_start_.erase(it);
      drop(e);
    } else {
      ++it;
    }
  }
}

}  // namespace ferry::transport::verbs
