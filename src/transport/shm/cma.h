// Cross-memory attach (CMA): copying straight out of a same-host peer's
// memory with process_vm_readv, for the single-copy rendezvous (p2p/engine.h).
//
// One copy instead of two (into the ring, out of it), and none of it by the
// sender. The kernel allows it when this process may ptrace the peer: same
// user, and neither Yama's ptrace_scope (>= 1 forbids siblings) nor a
// container's seccomp filter in the way. Whether it does is found out once
// per peer, by reading a word of its segment header, and remembered; a
// refused peer keeps the pipelined copy through the ring.
//
// Allowed is not the same as faster: the kernel pins every page it copies,
// and on 4 KiB pages that can cost more than the copy (on the 2-core VM of
// docs/performance.md, 12 GB/s against 80 GB/s for a memcpy of the same
// bytes). So FERRY_SHM_CMA=auto times both once (cma::calibrate) and uses
// CMA only where it wins; see ShmTransport::probe_cma.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace ferry::transport::shm::cma {

// Copies `n` bytes at address `remote` of process `pid` into `local`.
// Returns 0, or the errno of the failure (EPERM: not allowed; ENOSYS: no
// such system call; EFAULT/ESRCH: a bad address or a gone process).
int read(pid_t pid, uint64_t remote, void* local, size_t n);
// Copies `n` bytes at `local` to address `remote` of process `pid`; the same
// permissions and errors as read().
int write(pid_t pid, uint64_t remote, void* local, size_t n);

// Bytes per second that read() and a plain memcpy reach on the same `n`
// bytes of shared memory (at `remote` in process `pid`, at `mapped` here),
// best of a few tries each; cma is 0 if read() fails.
struct Rates {
  double cma = 0;
  double memcpy = 0;
};
Rates calibrate(pid_t pid, uint64_t remote, const void* mapped, size_t n);

}  // namespace ferry::transport::shm::cma
