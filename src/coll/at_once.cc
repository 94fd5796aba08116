#include "coll/at_once.h"

#include <string_view>

#include "base/revocation.h"
#include "coll/choose.h"
#include "coll/shm/agreement.h"
#include "coll/shm/started.h"
#include "common/debug.h"
#include "p2p/pt2pt.h"
#include "progress/progress.h"

namespace ferry::coll {

Request* collective_request(Communicator* c) {
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = c;
  r->active = true;
  r->status = pt2pt::empty_status();
  return r;
}

Request* completed_request(Communicator* c, const Err& e) {
  progress::Lock lock;
  Request* r = collective_request(c);
  complete(r, e);
  return r;
}

void note_at_once(const char* operation, const Communicator* c, const char* why) {
  if (debug::on(debug::kColl)) debug::print("%s on %d ranks: at once (%s)", operation, c->size, why);
}

namespace {

// The segment if a call with no data may take its number there at once:
// made already, nothing started on it pending (their flags must go up
// first: settle() waits for them on the longer way), not revoked (a
// revoked communicator's collectives fail; choose.cc).
shm::CommSegment* deferring_segment(Communicator* c) {
  shm::CommSegment* seg = shm::segment_if_made(c);
  if (seg == nullptr || seg->outstanding() != 0 || revocation::is_revoked(c->context)) return nullptr;
  return seg;
}

}  // namespace

bool defer_no_data_fully(const char* operation, Communicator* c) {
  // An intercommunicator or a communicator of one rank has no segment:
  // false (at_once.h).
  shm::CommSegment* seg = deferring_segment(c);
  if (seg == nullptr) return false;
  note_at_once(operation, c, "no data");
  seg->defer_nothing();
  return true;
}

void record_no_data(const char* operation, Communicator* c, Launch how) {
  if (how.form == Launch::Form::kBlocking) {
    // Counts the call toward the segment's making (segment.h), makes it
    // when its turn comes, and waits for what this rank started on it
    // (settle()).
    if (shm::CommSegment* seg = segment_if_possible(c, how)) seg->defer_nothing();
    return;
  }
  // Only the operations whose nonblocking form may take the segment
  // (choose.cc): a rank that passes data there finds this one's flag
  // without a record and fails, where a rank of another operation would
  // take a number that its peers running it by message do not.
  const std::string_view o = operation;
  if (o != "bcast" && o != "reduce" && o != "allreduce" && o != "gather" && o != "scatter" && o != "allgather" &&
      o != "alltoall")
    return;
  if (shm::CommSegment* seg = segment_if_possible(c, how)) shm::start(*seg, shm::Call{}, nullptr, false);
}

Err copy_own(const void* src, MPI_Count scount, const Datatype* stype, void* dst, MPI_Count rcount,
             const Datatype* rtype) {
  if (src == MPI_IN_PLACE || dst == MPI_IN_PLACE) return {};
  return copy_typed(src, scount, *stype, dst, rcount, *rtype);
}

}  // namespace ferry::coll
