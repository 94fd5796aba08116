// Broadcast on an intercommunicator: from the root to every process of the
// other group. The root sends to the remote leader, which broadcasts down a
// binomial tree of its group; the rest of the root's group does nothing.
//
// Cost = alpha + n beta + ceil(log2 n_remote) (alpha + n beta).
#include "coll/bcast/algorithms.h"
#include "coll/inter/algorithms.h"

namespace ferry::coll {

void inter_bcast(Schedule& s, void* buf, MPI_Count count, const Datatype* type, int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {
    s.send(buf, count, type, 0);
    s.end_round();
    return;
  }
  if (s.rank() == 0) {
    s.recv(buf, count, type, root);
    s.end_round();
  }
  s.use_local(true);
  bcast_binomial(s, buf, count, type, 0);
  s.use_local(false);
}

}  // namespace ferry::coll
