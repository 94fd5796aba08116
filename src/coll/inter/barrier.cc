// Barrier on an intercommunicator: nobody leaves before every process of
// both groups has arrived. Each group meets locally, the leaders swap a
// signal, and each leader releases its group.
//
// Cost = 2 ceil(log2 n_local) alpha + alpha.
#include "coll/barrier/algorithms.h"
#include "coll/bcast/algorithms.h"
#include "coll/inter/algorithms.h"
#include "coll/packed_bytes.h"

namespace ferry::coll {

void inter_barrier(Schedule& s) {
  // Phase 1: the local group has arrived.
  s.use_local(true);
  barrier_dissemination(s);
  s.use_local(false);
  // Phase 2: the leaders swap the news.
  if (s.rank() == 0) {
    s.recv(nullptr, 0, packed_bytes(), 0);
    s.send(nullptr, 0, packed_bytes(), 0);
    s.end_round();
  }
  // Phase 3: the leader tells its group.
  s.use_local(true);
  bcast_binomial(s, nullptr, 0, packed_bytes(), 0);
  s.use_local(false);
}

}  // namespace ferry::coll
