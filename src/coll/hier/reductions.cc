// Hierarchical allreduce and reduce (algorithms.h): combine within each
// host into one rank, combine among the hosts, and (allreduce) hand the
// result back within each host.
//
// The phases run on the signature's basic elements (Datatype::single_basic), which
// MPI requires every rank to pass alike, not on the datatype the rank
// passed: the local phase cuts the data into cell-sized pieces of whole
// elements, and ranks passing MPI_INT x 8 on one host and
// MPI_Type_contiguous(2, MPI_INT) x 4 on another must cut the same pieces.
// Only predefined operations that combine basic elements one by one come
// here (choose.cc): a pair type's MINLOC and MAXLOC, and users' operations,
// keep the flat algorithms.
#include <vector>

#include "coll/hier/algorithms.h"
#include "coll/hier/leaders.h"
#include "coll/hier/local.h"

namespace ferry::coll::hier {
namespace {

// The first error of the phases: a phase runs even after an earlier one
// failed on this rank, so that the ranks waiting on it in that phase are
// not left waiting (revocation ends every wait anyway).
Err first(Err a, Err b) { return a ? std::move(a) : std::move(b); }

// `count` elements of `type` as basic elements (contiguous: the same bytes).
struct Basic {
  MPI_Count count;
  const Datatype* type;
};
Basic basic_elements(MPI_Count count, const Datatype* type) {
  const Datatype* basic = find_datatype(type->single_basic());
  return {static_cast<MPI_Count>(type->bytes(count) / basic->size), basic};
}

Err allreduce_basic(Hierarchy& h, Communicator* c, const void* sendbuf, void* recvbuf, MPI_Count count,
                    const Datatype* type, const Op* op);
Err reduce_basic(Hierarchy& h, Communicator* c, const void* sendbuf, void* recvbuf, MPI_Count count,
                 const Datatype* type, const Op* op, int root);

}  // namespace

Err allreduce(Hierarchy& h, Communicator* c, const void* sendbuf, void* recvbuf, MPI_Count count,
              const Datatype* type, const Op* op) {
  const Basic b = basic_elements(count, type);
  return allreduce_basic(h, c, sendbuf, recvbuf, b.count, b.type, op);
}

Err reduce(Hierarchy& h, Communicator* c, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
           const Op* op, int root) {
  const Basic b = basic_elements(count, type);
  return reduce_basic(h, c, sendbuf, recvbuf, b.count, b.type, op, root);
}

namespace {

Err allreduce_basic(Hierarchy& h, Communicator* c, const void* sendbuf, void* recvbuf, MPI_Count count,
                    const Datatype* type, const Op* op) {
  // Phase 1: each host's ranks combine into their leader's recvbuf (in
  // place, a member's input is in its recvbuf).
  const void* input = sendbuf;
  Err e;
  if (h.local) {
    const void* mine = !h.leader() && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (Err l = local_reduce(*h.local, mine, recvbuf, count, type, op, 0)) return l;
    input = MPI_IN_PLACE;
  }
  // Phase 2: the leaders combine their hosts' results.
  if (h.leader()) e = leaders_allreduce(Leaders{c, h.representatives(-1), h.my_host}, input, recvbuf, count, type, op);
  else take_tag(c);
  // Phase 3: each leader hands the result to its host's ranks.
  if (h.local) e = first(std::move(e), local_bcast(*h.local, recvbuf, count, type, 0));
  return e;
}

Err reduce_basic(Hierarchy& h, Communicator* c, const void* sendbuf, void* recvbuf, MPI_Count count,
                 const Datatype* type, const Op* op, int root) {
  // The root stands for its host; every other host's leader for its own.
  const std::vector<int> reps = h.representatives(root);
  const int rep = reps[static_cast<size_t>(h.my_host)];
  const bool i_rep = rep == h.me, i_root = root == h.me;
  // A representative other than the root keeps its host's result here.
  std::vector<char> partial(i_rep && !i_root ? type->bytes(count) : 0);
  void* acc = i_root ? recvbuf : partial.data();
  // Phase 1: each host's ranks combine into their representative (MPI_IN_PLACE
  // only at the root, which is its host's representative).
  const void* input = sendbuf;
  if (h.local) {
    if (Err l = local_reduce(*h.local, sendbuf, acc, count, type, op, h.local_index[static_cast<size_t>(rep)]))
      return l;
    input = i_root ? MPI_IN_PLACE : acc;
  }
  // Phase 2: the representatives reduce to the root.
  if (!i_rep) {
    take_tag(c);
    return {};
  }
  std::vector<char> scratch(i_root ? 0 : type->bytes(count));
  return leaders_reduce(Leaders{c, reps, h.my_host}, input, i_root ? recvbuf : scratch.data(), count, type, op,
                        h.host_of[static_cast<size_t>(root)]);
}

}  // namespace

}  // namespace ferry::coll::hier
