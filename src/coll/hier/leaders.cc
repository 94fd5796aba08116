#include "coll/hier/leaders.h"

#include "coll/allgather/algorithms.h"
#include "coll/allreduce/algorithms.h"
#include "coll/barrier/algorithms.h"
#include "coll/bcast/algorithms.h"
#include "coll/packed_bytes.h"
#include "coll/reduce/algorithms.h"
#include "coll/schedule.h"
#include "coll/select.h"
#include "coll/typed_buffer.h"

namespace ferry::coll::hier {
namespace {

Query query(const Leaders& l, size_t bytes, bool commutative = true) {
  return Query{bytes, static_cast<int>(l.members.size()), commutative};
}

}  // namespace

Err leaders_allreduce(const Leaders& l, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                      const Op* op) {
  Algorithm a{};
  if (Err e = select(Operation::kAllreduce, query(l, type->bytes(count), op->commutative), &a)) return e;
  Schedule s(l.comm, l.members, l.me);
  switch (a) {
    case Algorithm::kRing: allreduce_ring(s, sendbuf, recvbuf, count, type, op); break;
    case Algorithm::kTree: allreduce_tree(s, sendbuf, recvbuf, count, type, op); break;
    case Algorithm::kRabenseifner: allreduce_rabenseifner(s, sendbuf, recvbuf, count, type, op); break;
    default: allreduce_recursive_doubling(s, sendbuf, recvbuf, count, type, op); break;
  }
  return s.run();
}

Err leaders_reduce(const Leaders& l, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                   const Op* op, int root) {
  Algorithm a{};
  if (Err e = select(Operation::kReduce, query(l, type->bytes(count), op->commutative), &a)) return e;
  Schedule s(l.comm, l.members, l.me);
  // recvbuf is significant at the root only; the others' algorithms keep
  // their partial results in scratch.
  switch (a) {
    case Algorithm::kReduceScatterGather: reduce_scatter_gather(s, sendbuf, recvbuf, count, type, op, root); break;
    case Algorithm::kHalves: reduce_halves(s, sendbuf, recvbuf, count, type, op, root); break;
    default: reduce_binomial(s, sendbuf, recvbuf, count, type, op, root); break;
  }
  return s.run();
}

Err leaders_bcast(const Leaders& l, void* buf, MPI_Count count, const Datatype* type, int root) {
  Algorithm a{};
  if (Err e = select(Operation::kBcast, query(l, type->bytes(count)), &a)) return e;
  Schedule s(l.comm, l.members, l.me);
  switch (a) {
    case Algorithm::kScatterRingAllgather: bcast_scatter_ring_allgather(s, buf, count, type, root); break;
    case Algorithm::kPipelinedChain:
      bcast_pipelined_chain(s, buf, count, type, root, bcast_chain_segment(type->bytes(count)));
      break;
    default: bcast_binomial(s, buf, count, type, root); break;
  }
  return s.run();
}

Err leaders_barrier(const Leaders& l) {
  Algorithm a{};
  if (Err e = select(Operation::kBarrier, query(l, 0), &a)) return e;
  Schedule s(l.comm, l.members, l.me);
  barrier_dissemination(s);
  return s.run();
}

Err leaders_allgatherv(const Leaders& l, void* all, CountArray bytes, DisplArray displs) {
  Schedule s(l.comm, l.members, l.me);
  allgatherv_ring(s, MPI_IN_PLACE, 0, packed_bytes(), all, bytes, displs, packed_bytes());
  return s.run();
}

}  // namespace ferry::coll::hier
