// What keeps the registration cache (verbs/reg_cache.h) right: it must
// hear of every change to the mapping of memory it has registered before
// the address can hold other pages.
//
// Two halves:
// - libmpi defines munmap, mremap and madvise (exported, libmpi.map): a
//   program linked with it calls these first; they invalidate the cached
//   regions in the range (madvise only for DONTNEED, FREE and REMOVE, which
//   drop pages) and go on to the next definition (libc's, or a sanitizer's).
//   Allocators that call them through the PLT (jemalloc, tcmalloc) are seen
//   too.
// - glibc's malloc unmaps and trims through internal calls that no symbol
//   hook sees, so it is told never to give memory back (mallopt: no mmap'd
//   chunks, no trimming, one arena; what Open MPI's leave-pinned mode did).
//   A freed block then keeps its pages, and a cached region over it stays
//   true when malloc hands the block out again. This must happen before the
//   program allocates its buffers, or a large block it allocated earlier
//   (mmap'd) would still be unmapped unseen when freed: so it is done when
//   libmpi is loaded, before main(), on hosts with an RDMA device
//   (/sys/class/infiniband) where FERRY_TRANSPORTS has verbs and
//   FERRY_IB_REG_CACHE is not 0; elsewhere malloc is left alone.
// active() says whether the hooks are the process's (they are not when
// libmpi was loaded with dlopen(RTLD_LOCAL), or when another library
// defines munmap first) and the allocator was prepared at load: only then
// is the cache turned on; otherwise every exposure registers and
// deregisters (correct, slower). Not seen: a program's own brk/sbrk and
// shmdt, and blocks mmap'd by constructors that ran before libmpi's;
// FERRY_IB_REG_CACHE=0 turns the cache off for such programs.
#pragma once

#include <cstddef>

namespace ferry::transport::verbs {
class RegistrationCache;
}

namespace ferry::transport::verbs::memory_hooks {

// Whether the hooks are in effect and malloc was prepared (above).
bool active();
// Prepares glibc's malloc (what loading libmpi does on RDMA hosts); for
// tests, which run without a device.
void prepare_allocator();
// The cache that intercepted unmappings invalidate (one per process).
void attach(RegistrationCache* cache);
void detach(RegistrationCache* cache);
// Memory in the range is going away (what the hooks call).
void unmapping(const void* address, size_t bytes);
// While a thread runs cache code, calls it makes (ibv_reg_mr's own
// madvise(DONTFORK), free of an entry) must not come back into the cache.
class Busy {
 public:
  Busy();
  ~Busy();
  static bool here();
};

}  // namespace ferry::transport::verbs::memory_hooks
