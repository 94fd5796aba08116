#include "coll/device_collectives.h"

#include <utility>

#include "coll/collectives.h"
#include "coll/device_buffers.h"
#include "coll/device_schedule.h"
#include "coll/neighbor/algorithms.h"
#include "common/debug.h"

namespace ferry::coll::gpu {
namespace {

bool is_root(const Communicator* c, int root) { return c->inter ? root == MPI_ROOT : c->rank == root; }
// Whether this rank's send buffer counts in a rooted collective to `root`:
// on an intercommunicator only the other group sends (§5.2.3).
bool sends_to(const Communicator* c, int root) { return !(c->inter && (root == MPI_ROOT || root == MPI_PROC_NULL)); }

// The send buffer of a gather or gatherv, staged where it counts.
const void* stage_send(HostStaging& st, bool sends, const void* sendbuf, MPI_Count count, const Datatype* type) {
  if (!sends) return sendbuf;
  ByteSpan s = span_of(type, count);
  return st.stage(sendbuf, s.lo, s.hi, true, false);
}

// Phase 3 of every staged collective: the outputs go back to the GPU; the
// collective's own error comes first.
Outcome finish(HostStaging& st, Err run) {
  Err copied = st.finish();
  return run ? std::move(run) : std::move(copied);
}

// Whether the call can run on its GPU buffers directly (coll/device_schedule.h):
// every significant buffer of this rank is GPU memory (or MPI_IN_PLACE) and
// its elements are contiguous, so the algorithms' copies are plain copies.
bool direct(std::initializer_list<const void*> buffers, std::initializer_list<const Datatype*> types) {
  for (const void* b : buffers)
    if (b != MPI_IN_PLACE && !on_gpu(b)) return false;
  for (const Datatype* t : types)  // nullptr: the send type of an MPI_IN_PLACE call, ignored
    if (t != nullptr && (!t->contiguous || t->lb != 0)) return false;
  return true;
}

// Runs `collective` with its scratch in GPU memory beside `near`.
template <typename F>
Outcome on_gpu_buffers(const char* name, const void* near, F&& collective) {
  FERRY_DEBUG(kCuda, "%s: run on the GPU buffers themselves (copies and reductions on the GPU)", name);
  ScratchOnGpu scratch(near);
  return collective();
}

// The nonblocking and persistent forms stage their GPU buffers with the
// copies as rounds of their schedule (coll/device_buffers.h).
bool deferred(Launch how) { return how.form != Launch::Form::kBlocking; }

}  // namespace

Outcome bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how) {
  // MPI_PROC_NULL: a rank of the root's group other than the root, which
  // takes no part (§5.2.3).
  if (!on_gpu(buf) || (c->inter && root == MPI_PROC_NULL)) return std::nullopt;
  if (direct({buf}, {type}))
    return on_gpu_buffers("MPI_Bcast", buf, [&] { return coll::bcast(buf, count, type, root, c, how); });
  HostStaging st(deferred(how));
  ByteSpan s = span_of(type, count);
  // The root's data goes in; everyone's comes out (the root's unchanged).
  void* b = st.stage(buf, s.lo, s.hi, true, !is_root(c, root));
  return finish(st, coll::bcast(b, count, type, root, c, how));
}

Outcome gather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
               const Datatype* recvtype, int root, Communicator* c, Launch how) {
  bool root_here = is_root(c, root);
  bool sends = sends_to(c, root);
  if (!(sends && on_gpu(sendbuf)) && !(root_here && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st(deferred(how));
  const void* sb = stage_send(st, sends, sendbuf, sendcount, sendtype);
  void* rb = recvbuf;
  if (root_here) {
    ByteSpan r = span_of_blocks(recvtype, recvcount, c->peer_count());
    rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  }
  return finish(st, coll::gather(sb, sendcount, sendtype, rb, recvcount, recvtype, root, c, how));
}

Outcome gatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root, Communicator* c,
                Launch how) {
  bool root_here = is_root(c, root);
  bool sends = sends_to(c, root);
  if (!(sends && on_gpu(sendbuf)) && !(root_here && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st(deferred(how));
  const void* sb = stage_send(st, sends, sendbuf, sendcount, sendtype);
  void* rb = recvbuf;
  if (root_here) {
    ByteSpan r = span_of(recvtype, recvcounts, displs, c->peer_count());
    rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  }
  return finish(st, coll::gatherv(sb, sendcount, sendtype, rb, recvcounts, displs, recvtype, root, c, how));
}

Outcome scatter(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                const Datatype* recvtype, int root, Communicator* c, Launch how) {
  bool root_here = is_root(c, root);
  bool receives = !(c->inter && (root == MPI_ROOT || root == MPI_PROC_NULL));
  if (!(root_here && on_gpu(sendbuf)) && !(receives && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st(deferred(how));
  const void* sb = sendbuf;
  if (root_here) {
    ByteSpan s = span_of_blocks(sendtype, sendcount, c->peer_count());
    sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  }
  void* rb = recvbuf;
  if (receives) {
    ByteSpan r = span_of(recvtype, recvcount);
    rb = st.stage(recvbuf, r.lo, r.hi, false, true);
  }
  return finish(st, coll::scatter(sb, sendcount, sendtype, rb, recvcount, recvtype, root, c, how));
}

Outcome scatterv(const void* sendbuf, CountArray sendcounts, DisplArray displs, const Datatype* sendtype, void* recvbuf,
                 MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how) {
  bool root_here = is_root(c, root);
  bool receives = !(c->inter && (root == MPI_ROOT || root == MPI_PROC_NULL));
  if (!(root_here && on_gpu(sendbuf)) && !(receives && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st(deferred(how));
  const void* sb = sendbuf;
  if (root_here) {
    ByteSpan s = span_of(sendtype, sendcounts, displs, c->peer_count());
    sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  }
  void* rb = recvbuf;
  if (receives) {
    ByteSpan r = span_of(recvtype, recvcount);
    rb = st.stage(recvbuf, r.lo, r.hi, false, true);
  }
  return finish(st, coll::scatterv(sb, sendcounts, displs, sendtype, rb, recvcount, recvtype, root, c, how));
}

Outcome allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                  MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  if (direct({sendbuf, recvbuf}, {sendtype, recvtype}))
    return on_gpu_buffers("MPI_Allgather", recvbuf, [&] {
      return coll::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
    });
  HostStaging st(deferred(how));
  ByteSpan s = span_of(sendtype, sendcount);
  ByteSpan r = span_of_blocks(recvtype, recvcount, c->peer_count());
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::allgather(sb, sendcount, sendtype, rb, recvcount, recvtype, c, how));
}

Outcome allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c, Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st(deferred(how));
  ByteSpan s = span_of(sendtype, sendcount);
  ByteSpan r = span_of(recvtype, recvcounts, displs, c->peer_count());
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::allgatherv(sb, sendcount, sendtype, rb, recvcounts, displs, recvtype, c, how));
}

Outcome alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                 const Datatype* recvtype, Communicator* c, Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  if (direct({sendbuf, recvbuf}, {sendtype, recvtype}))
    return on_gpu_buffers("MPI_Alltoall", recvbuf, [&] {
      return coll::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
    });
  HostStaging st(deferred(how));
  const void* sb = sendbuf;
  if (sendbuf != MPI_IN_PLACE) {
    ByteSpan s = span_of_blocks(sendtype, sendcount, c->peer_count());
    sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  }
  ByteSpan r = span_of_blocks(recvtype, recvcount, c->peer_count());
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::alltoall(sb, sendcount, sendtype, rb, recvcount, recvtype, c, how));
}

Outcome alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                  void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype, Communicator* c,
                  Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st(deferred(how));
  const void* sb = sendbuf;
  if (sendbuf != MPI_IN_PLACE) {
    ByteSpan s = span_of(sendtype, sendcounts, sdispls, c->peer_count());
    sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  }
  ByteSpan r = span_of(recvtype, recvcounts, rdispls, c->peer_count());
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::alltoallv(sb, sendcounts, sdispls, sendtype, rb, recvcounts, rdispls, recvtype, c, how));
}

Outcome alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* const sendtypes[],
                  void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* const recvtypes[],
                  Communicator* c, Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st(deferred(how));
  int n = c->peer_count();
  const void* sb = sendbuf;
  if (sendbuf != MPI_IN_PLACE) {
    ByteSpan s = span_of_w(sendtypes, sendcounts, sdispls, n);
    sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  }
  ByteSpan r = span_of_w(recvtypes, recvcounts, rdispls, n);
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::alltoallw(sb, sendcounts, sdispls, sendtypes, rb, recvcounts, rdispls, recvtypes, c, how));
}

namespace {

// A neighbourhood collective staged: `send` and `recv` are the spans of the
// blocks this rank sends and receives, given the in- and out-degrees.
template <typename Spans, typename Run>
Outcome staged_neighbors(const void* sendbuf, void* recvbuf, Communicator* c, Launch how, Spans&& spans, Run&& run) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  Neighbors nb = neighbors_of(*c);
  auto [send, recv] = spans(static_cast<int>(nb.in.size()), static_cast<int>(nb.out.size()));
  HostStaging st(deferred(how));
  const void* sb = st.stage(sendbuf, send.lo, send.hi, true, false);
  void* rb = st.stage(recvbuf, recv.lo, recv.hi, false, true);
  return finish(st, run(sb, rb));
}

}  // namespace

Outcome neighbor_allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                           MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  return staged_neighbors(
      sendbuf, recvbuf, c, how,
      [&](int in, int) { return std::pair{span_of(sendtype, sendcount), span_of_blocks(recvtype, recvcount, in)}; },
      [&](const void* sb, void* rb) {
        return coll::neighbor_allgather(sb, sendcount, sendtype, rb, recvcount, recvtype, c, how);
      });
}

Outcome neighbor_allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                            CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c,
                            Launch how) {
  return staged_neighbors(
      sendbuf, recvbuf, c, how,
      [&](int in, int) { return std::pair{span_of(sendtype, sendcount), span_of(recvtype, recvcounts, displs, in)}; },
      [&](const void* sb, void* rb) {
        return coll::neighbor_allgatherv(sb, sendcount, sendtype, rb, recvcounts, displs, recvtype, c, how);
      });
}

Outcome neighbor_alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                          MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  return staged_neighbors(
      sendbuf, recvbuf, c, how,
      [&](int in, int out) {
        return std::pair{span_of_blocks(sendtype, sendcount, out), span_of_blocks(recvtype, recvcount, in)};
      },
      [&](const void* sb, void* rb) {
        return coll::neighbor_alltoall(sb, sendcount, sendtype, rb, recvcount, recvtype, c, how);
      });
}

Outcome neighbor_alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                           void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype,
                           Communicator* c, Launch how) {
  return staged_neighbors(
      sendbuf, recvbuf, c, how,
      [&](int in, int out) {
        return std::pair{span_of(sendtype, sendcounts, sdispls, out), span_of(recvtype, recvcounts, rdispls, in)};
      },
      [&](const void* sb, void* rb) {
        return coll::neighbor_alltoallv(sb, sendcounts, sdispls, sendtype, rb, recvcounts, rdispls, recvtype, c, how);
      });
}

Outcome neighbor_alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                           const Datatype* const sendtypes[], void* recvbuf, CountArray recvcounts,
                           DisplArray rdispls, const Datatype* const recvtypes[], Communicator* c, Launch how) {
  return staged_neighbors(
      sendbuf, recvbuf, c, how,
      [&](int in, int out) {
        return std::pair{span_of_w(sendtypes, sendcounts, sdispls, out), span_of_w(recvtypes, recvcounts, rdispls, in)};
      },
      [&](const void* sb, void* rb) {
        return coll::neighbor_alltoallw(sb, sendcounts, sdispls, sendtypes, rb, recvcounts, rdispls, recvtypes, c,
                                        how);
      });
}

Outcome allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                  Communicator* c, Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  if (gpu_reducible(*op, *type) && direct({sendbuf, recvbuf}, {type}))
    return on_gpu_buffers("MPI_Allreduce", recvbuf,
                          [&] { return coll::allreduce(sendbuf, recvbuf, count, type, op, c, how); });
  HostStaging st(deferred(how));
  ByteSpan s = span_of(type, count);
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = st.stage(recvbuf, s.lo, s.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::allreduce(sb, rb, count, type, op, c, how));
}

Outcome reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
               Communicator* c, Launch how) {
  bool root_here = is_root(c, root);
  if (!(sends_to(c, root) && on_gpu(sendbuf)) && !(root_here && on_gpu(recvbuf))) return std::nullopt;
  if (gpu_reducible(*op, *type) && direct({sendbuf, root_here ? recvbuf : MPI_IN_PLACE}, {type}))
    return on_gpu_buffers("MPI_Reduce", sendbuf != MPI_IN_PLACE ? sendbuf : recvbuf,
                          [&] { return coll::reduce(sendbuf, recvbuf, count, type, op, root, c, how); });
  HostStaging st(deferred(how));
  ByteSpan s = span_of(type, count);
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = root_here ? st.stage(recvbuf, s.lo, s.hi, sendbuf == MPI_IN_PLACE, true) : recvbuf;
  return finish(st, coll::reduce(sb, rb, count, type, op, root, c, how));
}

Outcome reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type, const Op* op,
                       Communicator* c, Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  MPI_Count total = 0;
  for (int i = 0; i < c->size; ++i) total += recvcounts[i];
  HostStaging st(deferred(how));
  ByteSpan all = span_of(type, total);
  const void* sb = st.stage(sendbuf, all.lo, all.hi, true, false);
  ByteSpan mine = sendbuf == MPI_IN_PLACE ? all : span_of(type, recvcounts[c->rank]);
  void* rb = st.stage(recvbuf, mine.lo, mine.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::reduce_scatter(sb, rb, recvcounts, type, op, c, how));
}

Outcome reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                             const Op* op, Communicator* c, Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  if (gpu_reducible(*op, *type) && direct({sendbuf, recvbuf}, {type}))
    return on_gpu_buffers("MPI_Reduce_scatter_block", recvbuf, [&] {
      return coll::reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, c, how);
    });
  HostStaging st(deferred(how));
  ByteSpan all = span_of_blocks(type, recvcount, c->size);
  const void* sb = st.stage(sendbuf, all.lo, all.hi, true, false);
  ByteSpan mine = sendbuf == MPI_IN_PLACE ? all : span_of(type, recvcount);
  void* rb = st.stage(recvbuf, mine.lo, mine.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::reduce_scatter_block(sb, rb, recvcount, type, op, c, how));
}

Outcome scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, bool exclusive,
             Communicator* c, Launch how) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st(deferred(how));
  ByteSpan s = span_of(type, count);
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  // Exscan leaves rank 0's receive buffer undefined: copying it in keeps it as it was.
  void* rb = st.stage(recvbuf, s.lo, s.hi, sendbuf == MPI_IN_PLACE || exclusive, true);
  return finish(st, exclusive ? coll::exscan(sb, rb, count, type, op, c, how)
                              : coll::scan(sb, rb, count, type, op, c, how));
}

Outcome reduce_local(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op) {
  if (!on_gpu(in) && !on_gpu(inout)) return std::nullopt;
  return gpu::reduce(*op, in, inout, count, *type);  // a kernel where there is one, else through the host
}

}  // namespace ferry::coll::gpu
