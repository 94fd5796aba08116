// MPI_Alloc_mem's memory (MPI-4.0 §9.2), made so that a window on it
// (MPI_Win_create) is reached by same-host origins with loads, stores and
// CPU atomics, as MPI_Win_allocate's is, instead of a cross-memory-attach
// system call per operation and the accumulate lock.
//
// Each allocation is its own anonymous shared-memory file (memfd_create),
// mapped here and kept open. MPI_Win_create finds whether a rank's window
// lies inside one (`find`) and publishes the file's descriptor number; a
// peer on the host opens the file through /proc/<pid>/fd/<n> and maps it
// (`Mapping`). The file has no name: nothing is left behind in /dev/shm
// when a job is killed. The kernel lets a peer open it under the same rule
// as cross-memory attach (it may ptrace the owner); where it refuses, the
// window falls back to cross-memory attach for that target on every rank.
//
// Used where same-host RMA goes through memory (FERRY_RMA_SHM=on and shm in
// FERRY_TRANSPORTS), and for at most kMaxSegments allocations alive at once
// (each holds a file descriptor); otherwise, and when the kernel refuses a
// memfd, the memory comes from the heap as before.
//
// The mapping is shared, also with a child made by fork() without exec: its
// stores to the memory are seen by the parent (heap memory would be copied).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ferry::rma::alloc_mem {

constexpr int kMaxSegments = 256;

// `bytes` of memory, 64-byte aligned (page aligned when shared), or nullptr.
void* allocate(size_t bytes);
// MPI_Free_mem: memory from allocate(), or nullptr.
void release(void* base);

// Where [base, base + bytes) lies, when it is inside one shared allocation
// of this process.
struct Place {
  int fd;           // the allocation's file, open in this process
  uint64_t offset;  // of base in it
  uint64_t length;  // of the whole file
};
bool find(const void* base, size_t bytes, Place* out);

// Another process's allocation, mapped here (unmapped when destroyed).
class Mapping {
 public:
  Mapping() = default;
  ~Mapping();
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  Mapping(Mapping&& other) noexcept { *this = std::move(other); }
  Mapping& operator=(Mapping&& other) noexcept;

  // Maps `length` bytes of the file open as descriptor `fd` in process
  // `pid`; false with the reason in `error`.
  bool map(pid_t pid, int fd, uint64_t length, std::string* error);
  char* data() const { return static_cast<char*>(base_); }

 private:
  void* base_ = nullptr;
  size_t length_ = 0;
};

}  // namespace ferry::rma::alloc_mem
