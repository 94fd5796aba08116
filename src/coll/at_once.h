// Calls that finish at once: nothing to move, or nobody else to meet.
//
// MPI-3.1 §5.1: a collective may return as soon as this process's part is
// done, and only MPI_Barrier promises synchronisation. So a call whose data
// is empty on every rank (bcast, gather, scatter, allgather, alltoall of 0
// bytes; reductions of 0 elements), or one on a communicator of one rank,
// does its local copy (if any) and returns, without a schedule, a tag or a
// message, as MPICH and Open MPI do. The emptiness each call tests is one
// that every rank computes alike (counts that MPI requires to match), so
// either every rank skips the schedule or none does and the ranks'
// collective tags stay in step. The v and w forms, whose counts only the
// root (or each pair) knows, finish at once only on one rank.
//
// A blocking call with no data on a communicator of several ranks that
// may use shared-memory collectives (coll/shm) still takes the
// operation's number on its segment, without waiting for anyone, so that
// in an erroneous program whose other ranks pass data, a rank that waits
// on this one fails instead of waiting for ever (shm/segment.h,
// CommSegment::defer_nothing, says how and what it costs). The segment is
// made at the communicator's blocking collective after its first
// FERRY_COLL_SHM_AFTER, of any size, this one included (choose.cc), so that
// every rank counts and makes it at the same call: that call waits for
// every rank.
//
// On a revoked communicator such a call fails with MPIX_ERR_REVOKED, as
// one with data does (ULFM).
//
// Nonblocking forms get a request that is already complete. Persistent
// forms keep their (empty) schedule: they are built once, and each start
// costs nothing. Arguments were checked by the API before this point, so
// an invalid argument still fails as the standard requires.
#pragma once

#include <optional>

#include "base/communicator.h"
#include "base/error.h"
#include "base/revocation.h"
#include "coll/launch_form.h"
#include "coll/shm/segment.h"
#include "common/debug.h"
#include "device/device.h"
#include "p2p/revoke.h"

namespace ferry::coll {

// A nonblocking collective's request on `c`, active, not yet complete
// (engine lock held).
Request* collective_request(Communicator* c);

// A request that is complete with `e` (MPI_I... of a call that finished at once).
Request* completed_request(Communicator* c, const Err& e);

// Prints "<operation> on <n> ranks: at once (<why>)" under FERRY_DEBUG=coll.
void note_at_once(const char* operation, const Communicator* c, const char* why);

// A blocking call with no data on several ranks: its 0 bytes on the
// communicator's segment, if it has one (see above). A nonblocking one
// does the same where its operation has a nonblocking shared-memory form
// (shm/started.h) and the segment is made, in its turn after the
// operations this rank started before it.
void record_no_data(const char* operation, Communicator* c, Launch how);

// A blocking call with no data whose communicator's segment can take its
// operation number with the flags deferred (shm/segment.h, defer_nothing):
// takes it and returns true; false when the call must go the longer way
// (record_no_data, or no segment yet). Any communicator may be passed: an
// intercommunicator or one of a single rank never has a segment
// (segment_if_made answers nullptr), so it gets false and no check here.
// The caller owns the rest of the precondition: no data on every rank
// (no_data_now's `empty`, false on an intercommunicator).
bool defer_no_data_fully(const char* operation, Communicator* c);
// The same, inline where nothing but the number is to do (not revoked,
// no FERRY_DEBUG=coll line, defer_nothing_at_once), or nothing at all: a
// communicator that can never have a segment (shm::never_has_segment:
// across hosts, say) and is not revoked (at_once then fails the call) has
// no number to take and no call to count toward a segment's making. A call
// with no data then makes no function call (issue 29: 0-byte calls without
// a segment took 19-39 ns, now 7-12 as with one); else
// defer_no_data_fully.
inline __attribute__((always_inline)) bool defer_no_data(const char* operation, Communicator* c) {
  if (shm::never_has_segment(c) && !debug::on(debug::kColl) && !revocation::is_revoked(c->context)) return true;
  shm::CommSegment* seg = shm::segment_if_made(c);
  if (seg != nullptr && !revocation::is_revoked(c->context) && !debug::on(debug::kColl) && seg->defer_nothing_at_once())
      [[likely]]
    return true;
  return defer_no_data_fully(operation, c);
}

// The commonest trivial call, tested first, before the GPU test and the
// algorithm's entry (issue 29): blocking, with no data on any rank
// (`empty`, the same test as at_once's `trivial`, and false on an
// intercommunicator), done by defer_no_data. False: the call goes on its
// way, through at_once for the other trivial cases. A collective's entry
// point (inline in collectives.h, so in the API's entry point) tests it and
// hands the rest to a function of its own kept out of line
// (`allreduce_with_data`, ...): inlined there, the GPU tests and the
// algorithms' schedules gave the entry a frame of 900 bytes and spills
// that this call set up and took down without using. With that and
// defer_no_data inline, coll::allreduce of 0 elements on 2 ranks costs
// 50 instructions instead of 79 (callgrind, call_instructions).
inline __attribute__((always_inline)) bool no_data_now(const char* operation, Communicator* c, Launch how, bool empty) {
  return empty && how.form == Launch::Form::kBlocking && !device::enabled() && defer_no_data(operation, c);
}

// Finishes the call now when `trivial` holds: runs `work` (the local copy,
// returning Err) and answers as `how` says; nothing when the call must run
// its schedule. GPU buffers keep the schedule, whose copies know the
// device (coll/device_schedule.h).
template <typename Work>
std::optional<Err> at_once(const char* operation, Communicator* c, Launch how, bool trivial, Work&& work) {
  if (!trivial || c->inter || how.form == Launch::Form::kPersistent || device::enabled()) return std::nullopt;
  Err e;
  if (revocation::is_revoked(c->context)) [[unlikely]] {
    // Nothing to move or nobody to meet, but ULFM's promise holds: every
    // collective on a revoked communicator fails, as those with data do.
    e = p2p::revoke::refusal();
  } else {
    note_at_once(operation, c, c->size == 1 ? "one rank" : "no data");
    if (c->size > 1) record_no_data(operation, c, how);
    e = work();
  }
  if (how.form == Launch::Form::kNonblocking) {
    *how.request = completed_request(c, e);
    return Err();
  }
  return e;
}

// `work` for calls that copy nothing.
inline Err nothing() { return {}; }

// The local copy of a one-rank call: `src` to `dst` unless the call is in
// place (either is MPI_IN_PLACE). The same address on both sides is still
// copied: MPI_BOTTOM with two datatypes names different memory.
Err copy_own(const void* src, MPI_Count scount, const Datatype* stype, void* dst, MPI_Count rcount,
             const Datatype* rtype);

}  // namespace ferry::coll
