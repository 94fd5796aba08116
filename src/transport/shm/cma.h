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

// Below the ring's eager limit a read pays a fixed cost the ring does not:
// the system call and its page pinning, 2 us on the EPYC VM of
// docs/performance.md, where an 8 KiB ping-pong then took 7.8 us by CMA
// against 2.7 through the ring (on the Xeon VM, 1.47 against 2.05 per half
// round trip). So the size from which CMA goes below that limit is measured
// too: the smallest size, doubling from `from` and below `limit`, at which
// read_beats_ring; `limit` if none (or if read() fails).
size_t single_copy_from(pid_t pid, uint64_t remote, const void* mapped, size_t from, size_t limit);
// Whether a read of some bytes that took `read_seconds` beats sending them
// through the ring, where a memcpy of them took `memcpy_seconds`. On the
// EPYC VM the two went even at 64 KiB, where a read took 6 memcpys of shared
// pages; at 32 KiB it took 6.5-8.6 and the ring was 1.6-1.8x faster, at
// 8 KiB 17. So a read wins at 5 memcpys or fewer (the rule for large
// messages, 4, has the same margin).
bool read_beats_ring(double read_seconds, double memcpy_seconds);

}  // namespace ferry::transport::shm::cma
