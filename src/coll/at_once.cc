#include "coll/at_once.h"

#include "coll/choose.h"
#include "coll/shm/agreement.h"
#include "common/debug.h"
#include "p2p/pt2pt.h"
#include "progress/progress.h"

namespace ferry::coll {

Request* completed_request(Communicator* c, const Err& e) {
  progress::Lock lock;
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = c;
  r->active = true;
  r->status = pt2pt::empty_status();
  complete(r, e);
  return r;
}

void note_at_once(const char* operation, const Communicator* c, const char* why) {
  if (debug::on(debug::kColl)) debug::print("%s on %d ranks: at once (%s)", operation, c->size, why);
}

void record_no_data(Communicator* c, Launch how) {
  if (shm::CommSegment* seg = segment_if_possible(c, how)) shm::record_nothing(*seg);
}

Err copy_own(const void* src, MPI_Count scount, const Datatype* stype, void* dst, MPI_Count rcount,
             const Datatype* rtype) {
  if (src == MPI_IN_PLACE || dst == MPI_IN_PLACE) return {};
  return copy_typed(src, scount, *stype, dst, rcount, *rtype);
}

}  // namespace ferry::coll
