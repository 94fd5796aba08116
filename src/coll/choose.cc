// Choosing between shared memory and messages for a collective call
// (choose.h): the segment a call may use, the selection table's answer, and
// the agreement among the ranks where messages were chosen on a
// communicator that has a segment.
#include "coll/choose.h"

#include "base/revocation.h"
#include "coll/shm/agreement.h"
#include "device/device.h"

namespace ferry::coll {

// Blocking, on an eligible communicator, and host memory only (while a GPU
// driver is loaded a rank may pass device buffers, which loads and stores
// cannot touch; the message-based algorithms know device memory). Made at
// the first such call whatever its size: nothing here depends on what a
// rank passes (MPI-3.1 §5.12: a blocking collective never matches a
// nonblocking one), so every rank makes it at the same call, even when an
// erroneous program's ranks disagree on the sizes (shm/agreement.h).
// nullptr if it could not be made (every rank learns that alike).
shm::CommSegment* segment_if_possible(Communicator* c, Launch how) {
  if (how.form != Launch::Form::kBlocking || device::enabled() || !shm::eligible(c)) return nullptr;
  // A revoked communicator's collectives must fail with MPIX_ERR_REVOKED at
  // every member (p2p/revoke.h): the message path refuses at its first send
  // or receive, where flags in shared memory would wait for ranks that left.
  if (revocation::is_revoked(c->context)) [[unlikely]] return nullptr;
  return shm::segment_for(c);
}

Err select_shared(Operation o, Query q, size_t cell_bytes, bool dense, Communicator* c, Launch how, Algorithm* a,
                  shm::CommSegment** seg) {
  *seg = segment_if_possible(c, how);
  q.shared_memory = *seg != nullptr && dense && cell_bytes <= (*seg)->cell_bytes();
  if (Err e = select(o, q, a)) return e;
  if (*a == Algorithm::kSharedMemory || *seg == nullptr) return {};
  shm::CommSegment* s = *seg;
  *seg = nullptr;
  // A barrier has no data to disagree on.
  if (o == Operation::kBarrier) return {};
  return shm::agree_on_messages(*s, q.bytes);
}

Err choose_data(Operation o, size_t bytes, size_t cell_bytes, Communicator* c, Launch how, Algorithm* a,
                shm::CommSegment** seg) {
  return select_shared(o, Query{bytes, c->size, true}, cell_bytes, true, c, how, a, seg);
}

Err choose_reduction(Operation o, size_t bytes, const Datatype* type, const Op* op, Communicator* c, Launch how,
                     Algorithm* a, shm::CommSegment** seg) {
  return select_shared(o, Query{bytes, c->size, op->commutative}, bytes, type->contiguous, c, how, a, seg);
}

}  // namespace ferry::coll
