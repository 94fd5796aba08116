// Choosing between shared memory and messages for a collective call
// (choose.h): the segment a call may use, the selection table's answer, and
// the agreement among the ranks where messages were chosen on a
// communicator that has a segment.
#include "coll/choose.h"

#include "base/reduce_kernels.h"
#include "base/revocation.h"
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/started.h"
#include "device/device.h"

namespace ferry::coll {

// Blocking, on an eligible communicator, and host memory only (while a GPU
// driver is loaded a rank may pass device buffers, which loads and stores
// cannot touch; the message-based algorithms know device memory). Made at
// the first such call after the first FERRY_COLL_SHM_AFTER ones, whatever
// its size: every such call counts, and nothing here depends on what a
// rank passes (MPI-3.1 §5.12: a blocking collective never matches a
// nonblocking one), so every rank makes it at the same call, even when an
// erroneous program's ranks disagree on the sizes (shm/agreement.h).
// nullptr if it could not be made (every rank learns that alike).
//
// Nonblocking calls (shm/started.h) use the segment only
// once a blocking call has made it: making it waits for every rank, which
// a nonblocking call must not (MPI-3.1 §5.12). A blocking call first
// finishes the operations this rank started on it (shm::settle), whose
// flags come before its own.
//
// A blocking call with no data (at_once.h) counts and makes it too, and
// then waits for every rank: in an erroneous program whose ranks disagree
// on whether the call has data, they must still make the segment at the
// same call (a rank making it alone took the others' data for the name).
shm::CommSegment* segment_if_possible(Communicator* c, Launch how, bool now) {
  // segment_for and segment_if_made answer nullptr where the communicator
  // is not eligible (shm::eligible), without a second look at its state.
  if (device::enabled()) return nullptr;
  // A revoked communicator's collectives must fail with MPIX_ERR_REVOKED at
  // every member (p2p/revoke.h): the message path refuses at its first send
  // or receive, where flags in shared memory would wait for ranks that left.
  if (revocation::is_revoked(c->context)) [[unlikely]] return nullptr;
  if (how.form != Launch::Form::kBlocking) return shm::segment_if_made(c);
  shm::CommSegment* seg = shm::segment_for(c, now);
  if (seg != nullptr) shm::settle(*seg);
  return seg;
}

namespace {

// The operations whose nonblocking forms coll/shm runs (shm/started.h);
// every blocking one has a shared-memory form. Persistent forms keep their
// schedules: without the info key mpi_assert_strict_persistent_collective_ordering
// their starts need not come in the same order on every rank (MPI-4.0
// §6.13), and the segment numbers operations in the order they start.
bool has_started_form(Operation o, Launch how) {
  if (how.form == Launch::Form::kBlocking) return true;
  if (how.form == Launch::Form::kPersistent) return false;
  return o == Operation::kBarrier || o == Operation::kBcast || o == Operation::kReduce || o == Operation::kAllreduce ||
         o == Operation::kGather || o == Operation::kScatter || o == Operation::kAllgather ||
         o == Operation::kAlltoall;
}

// Data beyond a cell: a blocking bcast, gather, reduce, scan or exscan may
// stream through the cells (shm/algorithms.h).
bool streams(Operation o, Launch how, const shm::CommSegment& seg, size_t cell_bytes, bool elementwise) {
  if (how.form != Launch::Form::kBlocking) return false;
  switch (o) {
    case Operation::kBcast:
      return shm::bcast_streams(seg, cell_bytes);
    case Operation::kGather:
      return shm::gather_streams(seg, cell_bytes);
    case Operation::kScan:
    case Operation::kExscan:
      return shm::scan_streams(seg, cell_bytes, elementwise);
    case Operation::kReduce:
      return shm::reduce_streams(seg, cell_bytes, elementwise);
    default:
      return false;
  }
}

}  // namespace

Err select_shared(Operation o, Query q, size_t cell_bytes, Communicator* c, Launch how, Algorithm* a,
                  shm::CommSegment** seg, hier::Hierarchy** hier, bool hier_fits, bool order_matters,
                  bool elementwise) {
  *seg = segment_if_possible(c, how, order_matters);
  q.shared_memory = *seg != nullptr && has_started_form(o, how) &&
                    (cell_bytes <= (*seg)->cell_bytes() || streams(o, how, **seg, cell_bytes, elementwise));
  if (how.form == Launch::Form::kNonblocking) q.prefix = "i";
  if (how.form == Launch::Form::kPersistent) q.suffix = "_init";
  // Only a communicator without a segment of its own may span hosts; the
  // hierarchy is made whatever this call's data, so that every rank makes
  // it at the same call (hier_fits depends on what MPI requires to agree).
  hier::Hierarchy* h = *seg == nullptr && hier != nullptr && hier_fits ? hier::hierarchy_for(c, how) : nullptr;
  q.hierarchical = h != nullptr;
  q.hierarchical_forced = h != nullptr && hier::forced();
  q.chain_crossings = h != nullptr ? h->chain_crossings : -1;
  if (Err e = select(o, q, a)) return e;
  if (hier != nullptr) *hier = *a == Algorithm::kHierarchical ? h : nullptr;
  if (*a == Algorithm::kSharedMemory || *seg == nullptr) return {};
  shm::CommSegment* s = *seg;
  *seg = nullptr;
  // A nonblocking or persistent call by messages leaves the segment alone
  // (the agreement below waits for the others).
  if (how.form != Launch::Form::kBlocking) return {};
  // A barrier has no data to disagree on.
  if (o == Operation::kBarrier) return {};
  return shm::agree_on_messages(*s, q.bytes);
}

Err choose_data(Operation o, size_t bytes, size_t cell_bytes, Communicator* c, Launch how, Algorithm* a,
                shm::CommSegment** seg, hier::Hierarchy** hier) {
  return select_shared(o, Query{bytes, c->size, true}, cell_bytes, c, how, a, seg, hier);
}

namespace {

// Whether a reduction's bits are the same in any order of combining: a
// predefined operation on integers, logicals or bytes (base/reduce_kernels.h;
// not floating point, even MIN and MAX: -0.0 against +0.0, NaNs). Decided
// from the basic type of the signature, which MPI requires every rank to
// pass alike (the handles may differ: MPI_INTEGER and MPI_INTEGER4 are both
// Fortran integers). Unsure: false, which only makes the segment sooner.
bool order_free(const Datatype* type, const Op* op) {
  if (op->user()) return false;
  return reduce::exact_in_any_order(type->single_basic());
}

// coll/hier's reductions run on the signature's basic elements, the same
// on every rank whatever datatype each passed (hier/reductions.cc), with a
// predefined operation that combines them one by one (MPI_MINLOC on
// MPI_2INT, whose basic elements are ints, keeps the flat algorithms):
// this rank's element size or contiguity could differ from another's
// (same-signature types), and the ranks would wait for each other in
// different algorithms; a user's function takes the datatype each rank
// passed.
bool hier_reduces(const Datatype* type, const Op* op) {
  if (op->user()) return false;
  const MPI_Datatype basic = type->single_basic();
  return basic != MPI_DATATYPE_NULL && reduce::find_kernel(op->handle, basic) != nullptr;
}

}  // namespace

Err choose_reduction(Operation o, size_t bytes, const Datatype* type, const Op* op, Communicator* c, Launch how,
                     Algorithm* a, shm::CommSegment** seg, hier::Hierarchy** hier) {
  // A communicator with a segment of its own is on one host: no hierarchy
  // to ask about (and nothing more to look up on the way of small calls).
  const bool elementwise = hier_reduces(type, op);
  const bool hier_fits = shm::segment_if_made(c) == nullptr && elementwise;
  return select_shared(o, Query{bytes, c->size, op->commutative}, bytes, c, how, a, seg, hier,
                       hier_fits, !order_free(type, op), elementwise);
}

}  // namespace ferry::coll
