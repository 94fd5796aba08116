#include "transport/shm/cma.h"

#include <sys/uio.h>

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ferry::transport::shm::cma {

namespace {

// Both directions copy in a loop: the kernel may move less than asked (it
// works a bounded number of pages at a time); the rest is asked again.
template <typename Copy>
int copy_all(pid_t pid, uint64_t remote, void* local, size_t n, Copy copy) {
  size_t done = 0;
  while (done < n) {
    iovec here{static_cast<char*>(local) + done, n - done};
    iovec there{reinterpret_cast<void*>(static_cast<uintptr_t>(remote + done)), n - done};
    ssize_t moved = copy(pid, &here, 1, &there, 1, 0);
    if (moved < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (moved == 0) return EFAULT;
    done += static_cast<size_t>(moved);
  }
  return 0;
}

}  // namespace

int read(pid_t pid, uint64_t remote, void* local, size_t n) { return copy_all(pid, remote, local, n, process_vm_readv); }
int write(pid_t pid, uint64_t remote, void* local, size_t n) {
  return copy_all(pid, remote, local, n, process_vm_writev);
}

namespace {

double seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

Rates calibrate(pid_t pid, uint64_t remote, const void* mapped, size_t n) {
  std::vector<char> scratch(n, 1);  // touched: page faults are not what we time
  // Best of several: a try that lost the core to another process says
  // nothing about either copy, and MPI_Init is a busy time.
  constexpr int kTries = 5;
  double best_cma = 1e30, best_copy = 1e30;
  for (int i = 0; i < kTries; ++i) {
    double t0 = seconds();
    if (read(pid, remote, scratch.data(), n) != 0) return {};
    double t1 = seconds();
    std::memcpy(scratch.data(), mapped, n);
    // Keep the copy: the compiler must not drop a memcpy whose result is unused.
    __asm__ volatile("" : : "r"(scratch.data()) : "memory");
    double t2 = seconds();
    best_cma = std::min(best_cma, t1 - t0);
    best_copy = std::min(best_copy, t2 - t1);
  }
  auto rate = [n](double t) { return static_cast<double>(n) / std::max(t, 1e-9); };
  return Rates{rate(best_cma), rate(best_copy)};
}

}  // namespace ferry::transport::shm::cma
