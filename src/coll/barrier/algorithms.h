// Barrier algorithms; each builds its rounds into a Schedule. The choice
// between them is made in coll/select.cc.
#pragma once

#include "coll/schedule.h"

namespace ferry::coll {

// The rounds of the dissemination barrier, for both forms below: in round
// k, rank signals rank + 2^k and hears from rank - 2^k (mod p). Calls
// round(to, from) for each; stops early, returning false, if one does.
template <typename Round>
bool dissemination_rounds(int rank, int p, Round round) {
  for (int distance = 1; distance < p; distance *= 2)
    if (!round((rank + distance) % p, (rank - distance + p) % p)) return false;
  return true;
}

void barrier_dissemination(Schedule& s);
// The same rounds run at once by the calling thread (MPI_Barrier): a
// barrier is all latency, and building a schedule (its allocations, pooled
// requests) would cost more than its messages.
Err barrier_dissemination_now(Communicator* c);

}  // namespace ferry::coll
