#include "transport/verbs/memory_hooks.h"

#include <dirent.h>
#include <dlfcn.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <mutex>

#include "common/config.h"
#include "transport/verbs/reg_cache.h"

namespace ferry::transport::verbs::memory_hooks {
namespace {

std::mutex attach_lock;
std::atomic<RegistrationCache*> attached{nullptr};
thread_local int busy_depth = 0;
std::atomic<bool> allocator_prepared{false};

bool rdma_device_present() {
  DIR* dir = opendir("/sys/class/infiniband");
  if (dir == nullptr) return false;
  bool found = false;
  while (dirent* e = readdir(dir)) found = found || e->d_name[0] != '.';
  closedir(dir);
  return found;
}

// Before main(): see memory_hooks.h for why it cannot wait for MPI_Init.
__attribute__((constructor)) void prepare_at_load() {
  if (!rdma_device_present()) return;
  if (("," + ferry::config::value("FERRY_TRANSPORTS") + ",").find(",verbs,") == std::string::npos) return;
  if (ferry::config::integer("FERRY_IB_REG_CACHE") == 0) return;
  prepare_allocator();
}

// The next definitions (libc's, or a sanitizer's), looked up on first use
// without a function-local static: its guard would deadlock should the
// lookup itself ever unmap.
std::atomic<void*> next_munmap{nullptr}, next_mremap{nullptr}, next_madvise{nullptr};

template <typename F>
F next(std::atomic<void*>& slot, const char* symbol) {
  void* f = slot.load(std::memory_order_relaxed);
  if (f == nullptr) {
    f = dlsym(RTLD_NEXT, symbol);
    slot.store(f, std::memory_order_relaxed);
  }
  return reinterpret_cast<F>(f);
}

}  // namespace

Busy::Busy() { ++busy_depth; }
Busy::~Busy() { --busy_depth; }
bool Busy::here() { return busy_depth > 0; }

void attach(RegistrationCache* cache) {
  std::lock_guard<std::mutex> hold(attach_lock);
  attached.store(cache);
}

void detach(RegistrationCache* cache) {
  std::lock_guard<std::mutex> hold(attach_lock);
  if (attached.load() == cache) attached.store(nullptr);
}

void unmapping(const void* address, size_t bytes) {
  if (attached.load(std::memory_order_acquire) == nullptr || Busy::here()) return;
  std::lock_guard<std::mutex> hold(attach_lock);
  if (RegistrationCache* cache = attached.load()) cache->invalidate(address, bytes);
}

void prepare_allocator() {
  // glibc's malloc must keep what it maps (see memory_hooks.h).
  bool ok = mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, -1) == 1 && mallopt(M_ARENA_MAX, 1) == 1;
  allocator_prepared.store(ok);
}

bool active() {
  void* found = dlsym(RTLD_DEFAULT, "munmap");
  return found == reinterpret_cast<void*>(&::munmap) && allocator_prepared.load();
}

}  // namespace ferry::transport::verbs::memory_hooks

using ferry::transport::verbs::memory_hooks::next;
using ferry::transport::verbs::memory_hooks::next_madvise;
using ferry::transport::verbs::memory_hooks::next_mremap;
using ferry::transport::verbs::memory_hooks::next_munmap;
using ferry::transport::verbs::memory_hooks::unmapping;

// The interposed calls. They must work before anything is set up (a
// program's constructors may unmap): the system call does the work if
// there is no next definition.
extern "C" {

__attribute__((visibility("default"))) int munmap(void* address, size_t bytes) {
  unmapping(address, bytes);
  auto real = next<int (*)(void*, size_t)>(next_munmap, "munmap");
  return real ? real(address, bytes) : static_cast<int>(syscall(SYS_munmap, address, bytes));
}

__attribute__((visibility("default"))) void* mremap(void* old_address, size_t old_bytes, size_t new_bytes, int flags, ...) {
  void* new_address = nullptr;
  if ((flags & MREMAP_FIXED) != 0) {
    va_list args;
    va_start(args, flags);
    new_address = va_arg(args, void*);
    va_end(args);
  }
  unmapping(old_address, old_bytes);
  if (new_address != nullptr) unmapping(new_address, new_bytes);
  auto real = next<void* (*)(void*, size_t, size_t, int, ...)>(next_mremap, "mremap");
  if (real) return real(old_address, old_bytes, new_bytes, flags, new_address);
  return reinterpret_cast<void*>(syscall(SYS_mremap, old_address, old_bytes, new_bytes, flags, new_address));
}

__attribute__((visibility("default"))) int madvise(void* address, size_t bytes, int advice) {
  if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE) unmapping(address, bytes);
  auto real = next<int (*)(void*, size_t, int)>(next_madvise, "madvise");
  return real ? real(address, bytes, advice) : static_cast<int>(syscall(SYS_madvise, address, bytes, advice));
}

}  // extern "C"
