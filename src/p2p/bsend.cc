#include "p2p/bsend.h"

#include "p2p/data_access.h"

#include <cstring>
#include <list>

#include "progress/progress.h"
#include "base/request.h"
#include "base/type_pack.h"
#include "p2p/engine.h"

namespace ferry::bsend {
namespace {

// A region of the attached buffer holding one message's copy until its
// send completes. Regions are kept in address order; a new message takes the
// first gap that fits, each charged MPI_BSEND_OVERHEAD as MPI_Pack_size-style
// sizing in user code expects.
struct Region {
  size_t offset;
  size_t length;
  Request* request;  // the copy's send
  Request* owner;    // the user's request (MPI_Ibsend, MPI_Bsend_init), or nullptr
};

// Shared by every thread of the process and changed by any of them
// (MPI_THREAD_MULTIPLE): guarded by the engine lock, like the sends that
// use it, so two threads never pick the same gap.
char* attached = nullptr;
size_t attached_size = 0;
std::list<Region> regions;

// Releases the regions whose sends have completed. Engine lock held.
void reclaim() {
  for (auto it = regions.begin(); it != regions.end();) {
    if (it->request->complete) {
      requests::release(it->request);
      it = regions.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace

Err attach(void* buffer, MPI_Count size) {
  progress::Lock lock;
  if (attached != nullptr) return fail(MPI_ERR_BUFFER, "a buffer is already attached (detach it first)");
  attached = static_cast<char*>(buffer);
  attached_size = static_cast<size_t>(size);
  return {};
}

Err detach(void** buffer, MPI_Count* size) {
  progress::Lock lock;
  if (attached == nullptr) return fail(MPI_ERR_BUFFER, "no buffer is attached");
  progress::wait_until(lock, [] {
    for (const Region& r : regions)
      if (!r.request->complete) return false;
    return true;
  });
  reclaim();
  *buffer = attached;
  *size = static_cast<MPI_Count>(attached_size);
  attached = nullptr;
  attached_size = 0;
  return {};
}

Err send(pt2pt::Message m, int dest, int tag, Communicator* c, Request* owner) {
  if (dest == MPI_PROC_NULL) return {};
  size_t bytes = m.datatype->bytes(m.count);
  size_t need = bytes + MPI_BSEND_OVERHEAD;
  progress::Lock lock;
  progress::poll();
  reclaim();
  if (attached == nullptr)
    return fail(MPI_ERR_BUFFER, "no buffer is attached (MPI_Buffer_attach) for a buffered send of %zu bytes", bytes);
  size_t offset = 0;
  auto it = regions.begin();
  for (; it != regions.end(); ++it) {
    if (it->offset - offset >= need) break;
    offset = it->offset + it->length;
  }
  if (it == regions.end() && attached_size - offset < need)
    return fail(MPI_ERR_BUFFER,
                "the attached buffer (%zu bytes) has no room for %zu bytes plus MPI_BSEND_OVERHEAD (%d); "
                "attach a larger buffer",
                attached_size, bytes, MPI_BSEND_OVERHEAD);
  char* copy = attached + offset;
  // The copy is the packed data, whatever the datatype and wherever the
  // data lives (a GPU buffer is copied out, p2p/data_access.h); it goes as
  // bytes (an MPI_Count of them: MPI_Buffer_attach_c's buffer may pass 2 GiB).
  if (Err e = p2p::pack_into(m.buffer, m.count, m.datatype, bytes, copy)) return e;
  pt2pt::Message packed{copy, static_cast<MPI_Count>(bytes), find_datatype(MPI_BYTE)};
  Request* r = nullptr;
  // Sent in buffered mode: eagerly where the route allows, even from the
  // size where a standard send would be read in place (p2p/engine.cc), so
  // that its region of the attached buffer is free again without waiting
  // for the receive (a program may detach, or Bsend again, first).
  Err e = pt2pt::isend(packed, dest, tag, c, Request::Mode::kBuffered, &r);
  if (e) {
    requests::release(r);
    return e;
  }
  regions.insert(it, Region{offset, need, r, owner});
  if (owner != nullptr) owner->bsend_copy = copy;
  return {};
}

Err cancel(Request* owner) {
  for (Region& g : regions) {
    // The owner's handle may have been retired and reused since; the copy's
    // address tells this operation's region from an older one's.
    if (g.owner != owner || attached + g.offset != owner->bsend_copy) continue;
    Request* s = g.request;
    if (s->cancel_pending || s->cancelled) return {};
    if (Err e = p2p::cancel_send(s)) return e;
    s->cancel_for = owner;
    owner->cancel_pending = true;
    owner->complete = false;
    return {};
  }
  return {};
}

}  // namespace ferry::bsend
