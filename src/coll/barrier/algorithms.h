// Barrier algorithms; each builds its rounds into a Schedule. The choice
// between them is made in coll/select.cc.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

void barrier_dissemination(Schedule& s);
// The same rounds run at once by the calling thread (MPI_Barrier): a
// barrier is all latency, and building a schedule (its allocations, pooled
// requests) would cost more than its messages.
Err barrier_dissemination_now(Communicator* c);

}  // namespace ferry::coll
