// Choosing a collective call's algorithm where coll/shm may run it: the
// entry points (rooted.cc, all_ranks.cc, reductions.cc) ask here before
// they build a schedule, so that shared memory or messages is decided in
// one place, alike on every rank.
//
// The choice rests on the bytes of the type signature (select.cc's Query),
// which MPI requires to agree, never on counts or extents; where the
// communicator has a shared-memory segment and messages were chosen, the
// ranks first check on the segment that none chose shared memory and that
// their bytes agree (shm/agreement.h), so that an erroneous program fails
// there instead of hanging. The algorithm is chosen before any schedule is
// built, so that an unknown FERRY_<OPERATION>_ALGORITHM fails the call on
// every rank alike before any rank takes a collective tag.
#pragma once

#include <cstddef>

#include "base/communicator.h"
#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "base/revocation.h"
#include "coll/choice_counters.h"
#include "coll/collectives.h"
#include "coll/hier/structure.h"
#include "coll/select.h"
#include "coll/shm/segment.h"
#include "device/device.h"

namespace ferry::coll {

// The communicator's shared-memory segment (coll/shm) if this call could
// run there at some size; nullptr if not (see choose.cc).
// `now`: make it at this call, whatever the count (select_shared).
shm::CommSegment* segment_if_possible(Communicator* c, Launch how, bool now = false);

// select() for a call whose shared-memory form puts `cell_bytes` in each
// writer's cell, with the segment in *seg where shared memory was chosen
// (nullptr otherwise). The choice rests only on what MPI requires every
// rank to pass alike (the bytes of the type signature, the operation), never
// on this rank's datatype: ranks may pass a contiguous type and a strided
// one of the same signature (MPI-4.0 §6.1), and would take different paths.
//
// `hier` non-null: the operation has a hierarchical form (coll/hier), or
// (scans) a choice that depends on where the hosts are
// (Query::chain_crossings), and may use the hierarchy where `hier_fits`
// (reductions: a predefined operation on data of one basic type,
// choose_reduction); *hier is the communicator's hierarchy where the
// hierarchical form was chosen (nullptr otherwise). The communicator's
// first such call makes the hierarchy (hier/structure.h).
//
// `order_matters`: a reduction whose bits depend on the order it combines
// in (floating-point data, whatever the operation; users' operations).
// Shared memory and messages combine in different orders, so such a call
// makes the segment at once rather than after FERRY_COLL_SHM_AFTER calls:
// its algorithm must not depend on how many calls the communicator ran
// before (README "Reproducibility": a training job restarted from a
// checkpoint ends with the same loss, bit for bit, as one never stopped).
//
// `elementwise`: a reduction of one basic type with a predefined operation
// that has a kernel for it, which a blocking reduce or scan needs to stream
// beyond a cell (shm/algorithms.h, reduce_streams, scan_streams).
Err select_shared(Operation o, Query q, size_t cell_bytes, Communicator* c, Launch how, Algorithm* a,
                  shm::CommSegment** seg, hier::Hierarchy** hier = nullptr, bool hier_fits = true,
                  bool order_matters = false, bool elementwise = false);

// Data movement and barrier. `bytes`: what one rank sends (select.cc);
// `cell_bytes`: what a writer puts in its cell on the shared-memory path.
Err choose_data(Operation o, size_t bytes, size_t cell_bytes, Communicator* c, Launch how, Algorithm* a,
                shm::CommSegment** seg, hier::Hierarchy** hier = nullptr);

// The reductions, which coll/shm runs on packed data in its cells (a rank
// whose datatype is not contiguous, MPI_DOUBLE_INT or a user's strided
// type, unpacks each operand first, shm/cells.h); `bytes` is one rank's
// whole input (reduce_scatter: all blocks).
Err choose_reduction(Operation o, size_t bytes, const Datatype* type, const Op* op, Communicator* c, Launch how,
                     Algorithm* a, shm::CommSegment** seg, hier::Hierarchy** hier = nullptr);

// A blocking call that select_shared would put on shared memory, decided
// without it: the segment, or nullptr, and then the call goes the long way
// (choose_data, choose_reduction), which decides the same. Taken where the
// communicator's segment is made, no operation started on it is pending
// (segment_if_possible's settle), the data is not empty (at_once.h) and fits
// (`cell_bytes`, as the caller passes select_shared; reductions: and a
// contiguous type, the caller's test), no GPU driver is loaded, the
// communicator is not revoked, and the table takes shared memory for every
// such call of `o` (shared_memory_whenever_possible). The choice is counted
// as select() counts it. In a stream of small rooted calls the long way
// cost about 300 of the root's 790 instructions per 8-byte bcast on 2 ranks
// (issue 29, tests/bench/rooted_instructions.c).
inline __attribute__((always_inline)) shm::CommSegment* shared_now(Operation o, size_t bytes, size_t cell_bytes,
                                                                   Communicator* c, Launch how) {
  if (how.form != Launch::Form::kBlocking || bytes == 0) return nullptr;
  shm::CommSegment* seg = shm::segment_if_made(c);
  if (seg == nullptr || cell_bytes > seg->cell_bytes() || seg->outstanding() != 0) [[unlikely]] return nullptr;
  if (device::enabled() || revocation::is_revoked(c->context) || !shared_memory_whenever_possible(o)) [[unlikely]]
    return nullptr;
  count_choice(o, Algorithm::kSharedMemory, Query{bytes, c->size, true});
  return seg;
}

}  // namespace ferry::coll
