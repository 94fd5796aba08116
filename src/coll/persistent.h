// Persistent collective requests (MPI-4.0 §6.13): MPI_Allreduce_init and
// the other *_init calls build their schedule once, with its algorithm,
// tag and scratch; each MPI_Start re-arms the same schedule and hands it
// to the progress engine. A start therefore costs the messages and
// nothing else: no selection, no allocation of scratch, no new tag.
//
// One tag for every start is safe: MPI-4.0 §6.13 requires a persistent
// collective to complete before it is started again, on every rank, so
// two starts of one request never have messages in flight at once, and
// MPI's non-overtaking rule keeps each start's messages in order.
#pragma once

#include <memory>

#include "base/request.h"
#include "coll/schedule.h"

namespace ferry::coll {

// An inactive persistent request that owns `schedule` (freed with the
// request: MPI_Request_free). MPI_Start (pt2pt::start) runs it.
Request* make_persistent(std::unique_ptr<Schedule> schedule);

}  // namespace ferry::coll
