// Hierarchical bcast and barrier (algorithms.h).
#include <vector>

#include "coll/hier/algorithms.h"
#include "coll/hier/leaders.h"
#include "coll/hier/local.h"
#include "coll/shm/algorithms.h"

namespace ferry::coll::hier {

Err bcast(Hierarchy& h, Communicator* c, void* buf, MPI_Count count, const Datatype* type, int root) {
  // Phase 1: among one rank per host, the root standing for its own host.
  const std::vector<int> reps = h.representatives(root);
  const int rep = reps[static_cast<size_t>(h.my_host)];
  Err e;
  if (rep == h.me)
    e = leaders_bcast(Leaders{c, reps, h.my_host}, buf, count, type, h.host_of[static_cast<size_t>(root)]);
  else
    take_tag(c);
  // Phase 2: within each host, from its representative (which runs it even
  // if phase 1 failed, so that its host's ranks do not wait for ever).
  if (h.local) {
    Err l = local_bcast(*h.local, buf, count, type, h.local_index[static_cast<size_t>(rep)]);
    if (!e) e = std::move(l);
  }
  return e;
}

Err barrier(Hierarchy& h, Communicator* c) {
  // Phase 1: every rank of the host has arrived (one flag each).
  if (h.local)
    if (Err e = shm::barrier(*h.local)) return e;
  // Phase 2: the leaders meet.
  Err e;
  if (h.leader()) e = leaders_barrier(Leaders{c, h.representatives(-1), h.my_host});
  else take_tag(c);
  // Phase 3: the leader releases its host's ranks: a bcast of nothing,
  // whose readers wait for the leader's flag alone.
  if (h.local) {
    Err l = local_bcast_bytes(*h.local, nullptr, 0, 0);
    if (!e) e = std::move(l);
  }
  return e;
}

}  // namespace ferry::coll::hier
