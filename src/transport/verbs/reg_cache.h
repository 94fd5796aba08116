// The registration cache: memory regions keyed by address range, so that a
// buffer sent twice is registered (pinned, translated by the NIC) once.
//
// A region covers whole pages around what was asked. A lookup takes any
// cached region that covers the range; entries in use (an exposure or a
// read under way) hold a reference. Unused entries are kept in LRU order
// and the least recently used go once the bytes they pin exceed the bound
// (FERRY_IB_REG_CACHE). A bound of 0 turns caching off: every acquire
// registers and every release deregisters.
//
// Never wrong: a cached region pins the physical pages that were mapped at
// the address when it was registered; once the program frees that memory
// and the address is mapped again (munmap + mmap, mremap, madvise
// DONTNEED, a heap trimmed and regrown), the region still points at the old
// pages and a cached hit would send stale bytes. invalidate() drops every
// entry overlapping a range before that can happen: memory_hooks.h calls
// it from the intercepted calls that unmap memory, and the cache is only
// turned on when those hooks are known to be in effect (see there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <string>

#include "transport/verbs/device.h"

namespace ferry::transport::verbs {

class RegistrationCache {
 public:
  struct Entry {
    uintptr_t start = 0;
    size_t bytes = 0;
    Region region;
    int users = 0;
    bool stale = false;  // invalidated while in use: deregistered on release
    std::list<Entry*>::iterator lru;
  };

  RegistrationCache(Device* device, size_t bound_bytes);
  ~RegistrationCache();
  RegistrationCache(const RegistrationCache&) = delete;
  RegistrationCache& operator=(const RegistrationCache&) = delete;

  // A region covering [address, address + bytes), with a reference.
  // nullptr with a message if the device refused the registration.
  Entry* acquire(const void* address, size_t bytes, std::string* error);
  void release(Entry* entry);
  // Memory in [address, address + bytes) is going away.
  void invalidate(const void* address, size_t bytes);

  bool caching() const { return bound_ > 0; }
  size_t cached_bytes() const { return cached_bytes_; }
  size_t entries() const { return by_start_.size(); }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  void drop(Entry* e);  // out of the map; deregistered unless in use
  void trim();

  // Unmapping hooks may call invalidate() from any thread.
  std::mutex lock_;
  Device* device_;
  size_t bound_;
  size_t cached_bytes_ = 0;  // bytes of entries in the map
  uint64_t hits_ = 0, misses_ = 0;
  std::multimap<uintptr_t, Entry*> by_start_;
  std::list<Entry*> unused_;  // least recently used first
  size_t largest_ = 0;        // the longest entry: how far back a lookup looks
};

}  // namespace ferry::transport::verbs
