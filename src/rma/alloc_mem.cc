#include "rma/alloc_mem.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <mutex>

#include "rma/window.h"

namespace ferry::rma::alloc_mem {
namespace {

struct Segment {
  int fd;
  size_t length;
};

// The live shared allocations by base address. MPI_Alloc_mem may be called
// from any thread (MPI_THREAD_MULTIPLE), outside the progress engine.
std::mutex table_mutex;
std::map<uintptr_t, Segment>& table() {
  static std::map<uintptr_t, Segment> live;
  return live;
}

void* allocate_shared(size_t bytes) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t length = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  int fd = memfd_create("ferry-alloc-mem", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  if (ftruncate(fd, static_cast<off_t>(length)) != 0) {
    close(fd);
    return nullptr;
  }
  void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    close(fd);
    return nullptr;
  }
  table()[reinterpret_cast<uintptr_t>(base)] = Segment{fd, length};
  return base;
}

}  // namespace

void* allocate(size_t bytes) {
  if (same_host_direct()) {
    std::lock_guard<std::mutex> guard(table_mutex);
    if (table().size() < static_cast<size_t>(kMaxSegments))
      if (void* base = allocate_shared(bytes)) return base;
  }
  // Cache-line aligned, so that buffers are friendly to every transport.
  void* memory = nullptr;
  if (posix_memalign(&memory, 64, bytes > 0 ? bytes : 1) != 0) return nullptr;
  return memory;
}

void release(void* base) {
  if (base == nullptr) return;
  {
    std::lock_guard<std::mutex> guard(table_mutex);
    auto it = table().find(reinterpret_cast<uintptr_t>(base));
    if (it != table().end()) {
      munmap(base, it->second.length);
      close(it->second.fd);
      table().erase(it);
      return;
    }
  }
  std::free(base);
}

bool find(const void* base, size_t bytes, Place* out) {
  uintptr_t b = reinterpret_cast<uintptr_t>(base);
  std::lock_guard<std::mutex> guard(table_mutex);
  auto& live = table();
  auto it = live.upper_bound(b);  // the first allocation above base
  if (it == live.begin()) return false;
  --it;
  if (b + bytes > it->first + it->second.length) return false;
  *out = Place{it->second.fd, b - it->first, it->second.length};
  return true;
}

Mapping::~Mapping() {
  if (base_ != nullptr) munmap(base_, length_);
}

Mapping& Mapping::operator=(Mapping&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) munmap(base_, length_);
    base_ = other.base_;
    length_ = other.length_;
    other.base_ = nullptr;
    other.length_ = 0;
  }
  return *this;
}

bool Mapping::map(pid_t pid, int fd, uint64_t length, std::string* error) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/fd/%d", static_cast<int>(pid), fd);
  int mine = open(path, O_RDWR | O_CLOEXEC);
  if (mine < 0) {
    *error = std::string("open ") + path + ": " + std::strerror(errno);
    return false;
  }
  // The owner's descriptor holds the file it published (freeing the
  // memory under a window being created is erroneous); its size guards
  // against mapping past the end, which would fault later.
  struct stat st {};
  if (fstat(mine, &st) != 0 || static_cast<uint64_t>(st.st_size) < length) {
    close(mine);
    *error = std::string(path) + " is not the window's memory (smaller than expected)";
    return false;
  }
  void* at = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0);
  int saved = errno;
  close(mine);
  if (at == MAP_FAILED) {
    *error = std::string("mmap ") + path + ": " + std::strerror(saved);
    return false;
  }
  base_ = at;
  length_ = length;
  return true;
}

}  // namespace ferry::rma::alloc_mem
