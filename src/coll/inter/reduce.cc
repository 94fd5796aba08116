// Reductions on an intercommunicator: a group's data is reduced for the
// other group. The sending group reduces to its leader down a binomial tree
// (coll/reduce/binomial.cc); the leader sends the result across: to the root
// (reduce), or to the other leader, which broadcasts it in its group
// (allreduce, both directions at once) or scatters it (reduce_scatter).
//
// Cost (allreduce) = 2 ceil(log2 n_local) (alpha + n beta) + ceil(log2 n_local) n gamma + alpha + n beta.
#include <vector>

#include "coll/bcast/algorithms.h"
#include "coll/inter/algorithms.h"
#include "coll/reduce/algorithms.h"
#include "coll/scatter/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {
namespace {

// The local group's reduction, at its leader: returned there, nullptr elsewhere.
void* reduce_locally(Schedule& s, const void* sendbuf, MPI_Count count, const Datatype* type, const Op* op) {
  void* result = s.rank() == 0 ? temp_buffer(s, static_cast<size_t>(count), type) : nullptr;
  s.use_local(true);
  if (s.size() == 1) {
    s.copy(sendbuf, count, type, result, count, type);
    s.end_round();
  } else {
    reduce_binomial(s, sendbuf, result, count, type, op, 0);
  }
  s.use_local(false);
  return result;
}

}  // namespace

void inter_reduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                  int root) {
  if (root == MPI_PROC_NULL) return;
  if (root == MPI_ROOT) {
    s.recv(recvbuf, count, type, 0);
    s.end_round();
    return;
  }
  void* result = reduce_locally(s, sendbuf, count, type, op);
  if (s.rank() == 0) {
    s.send(result, count, type, root);
    s.end_round();
  }
}

void inter_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                     const Op* op) {
  // Phase 1: each group's reduction at its leader.
  void* result = reduce_locally(s, sendbuf, count, type, op);
  // Phase 2: the leaders swap them.
  if (s.rank() == 0) {
    s.recv(recvbuf, count, type, 0);
    s.send(result, count, type, 0);
    s.end_round();
  }
  // Phase 3: each leader broadcasts the other group's result.
  s.use_local(true);
  bcast_binomial(s, recvbuf, count, type, 0);
  s.use_local(false);
}

void inter_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                          const Datatype* type, const Op* op) {
  // Both groups' vectors have the same length (MPI-3.1 §5.10.1): the sum of
  // either group's recvcounts.
  std::vector<MPI_Count> displs(static_cast<size_t>(s.size()));
  MPI_Count total = 0;
  for (int r = 0; r < s.size(); ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += recvcounts[r];
  }
  void* result = reduce_locally(s, sendbuf, total, type, op);
  void* theirs = nullptr;
  if (s.rank() == 0) {
    theirs = temp_buffer(s, static_cast<size_t>(total), type);
    s.recv(theirs, total, type, 0);
    s.send(result, total, type, 0);
    s.end_round();
  }
  s.use_local(true);
  scatterv_linear(s, theirs, recvcounts, displs.data(), type, recvbuf, recvcounts[s.rank()], type, 0);
  s.use_local(false);
}

void inter_allreduce_both_groups(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                                 const Op* op) {
  void* result = reduce_locally(s, sendbuf, count, type, op);
  if (s.rank() == 0) {
    void* theirs = temp_buffer(s, static_cast<size_t>(count), type);
    s.recv(theirs, count, type, 0);
    s.send(result, count, type, 0);
    // After the round's messages: the send has left `result`.
    s.reduce(theirs, result, count, type, op);
    s.copy(result, count, type, recvbuf, count, type);
    s.end_round();
  }
  s.use_local(true);
  bcast_binomial(s, recvbuf, count, type, 0);
  s.use_local(false);
}

}  // namespace ferry::coll
