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

// The best times of read() and a memcpy of `n` bytes over `tries` tries
// each; read 0 if it fails. A try that lost the core to another process
// says nothing about either copy, and MPI_Init is a busy time.
struct Times {
  double read = 0;
  double memcpy = 0;
};
Times time_copies(pid_t pid, uint64_t remote, const void* mapped, size_t n, int tries) {
  std::vector<char> scratch(n, 1);  // touched: page faults are not what we time
  double best_read = 1e30, best_copy = 1e30;
  for (int i = 0; i < tries; ++i) {
    double t0 = seconds();
    if (read(pid, remote, scratch.data(), n) != 0) return {};
    double t1 = seconds();
    std::memcpy(scratch.data(), mapped, n);
    // Keep the copy: the compiler must not drop a memcpy whose result is unused.
    __asm__ volatile("" : : "r"(scratch.data()) : "memory");
    double t2 = seconds();
    best_read = std::min(best_read, t1 - t0);
    best_copy = std::min(best_copy, t2 - t1);
  }
  return Times{best_read, best_copy};
}

}  // namespace

Rates calibrate(pid_t pid, uint64_t remote, const void* mapped, size_t n) {
  Times t = time_copies(pid, remote, mapped, n, 5);
  if (t.read == 0) return {};
  auto rate = [n](double seconds) { return static_cast<double>(n) / std::max(seconds, 1e-9); };
  return Rates{rate(t.read), rate(t.memcpy)};
}

bool read_beats_ring(double read_seconds, double memcpy_seconds) { return read_seconds <= 5 * memcpy_seconds; }

size_t single_copy_from(pid_t pid, uint64_t remote, const void* mapped, size_t from, size_t limit) {
  for (size_t n = from; n < limit; n *= 2) {
    // Small copies take well under a microsecond: more tries, so that the
    // best of them is the copy's and not the clock's or a preemption's.
    Times t = time_copies(pid, remote, mapped, n, 20);
    if (t.read == 0) return limit;
    if (read_beats_ring(t.read, t.memcpy)) return n;
  }
  return limit;
}

}  // namespace ferry::transport::shm::cma
