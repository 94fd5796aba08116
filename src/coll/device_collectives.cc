#include "coll/device_collectives.h"

#include "coll/collectives.h"
#include "coll/device_buffers.h"

namespace ferry::coll::gpu {
namespace {

bool is_root(const Communicator* c, int root) { return c->inter ? root == MPI_ROOT : c->rank == root; }

// Phase 3 of every staged collective: the outputs go back to the GPU; the
// collective's own error comes first.
Outcome finish(HostStaging& st, Err run) {
  Err copied = st.finish();
  return run ? std::move(run) : std::move(copied);
}

}  // namespace

Outcome bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c) {
  if (!on_gpu(buf)) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(type, count);
  // The root's data goes in; everyone's comes out (the root's unchanged).
  void* b = st.stage(buf, s.lo, s.hi, true, !is_root(c, root));
  return finish(st, coll::bcast(b, count, type, root, c));
}

Outcome gather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
               const Datatype* recvtype, int root, Communicator* c) {
  bool root_here = is_root(c, root);
  if (!on_gpu(sendbuf) && !(root_here && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(sendtype, sendcount);
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = recvbuf;
  if (root_here) {
    ByteSpan r = span_of_blocks(recvtype, recvcount, c->peer_count());
    rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  }
  return finish(st, coll::gather(sb, sendcount, sendtype, rb, recvcount, recvtype, root, c));
}

Outcome gatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root, Communicator* c) {
  bool root_here = is_root(c, root);
  if (!on_gpu(sendbuf) && !(root_here && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(sendtype, sendcount);
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = recvbuf;
  if (root_here) {
    ByteSpan r = span_of(recvtype, recvcounts, displs, c->peer_count());
    rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  }
  return finish(st, coll::gatherv(sb, sendcount, sendtype, rb, recvcounts, displs, recvtype, root, c));
}

Outcome scatter(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                const Datatype* recvtype, int root, Communicator* c) {
  bool root_here = is_root(c, root);
  bool receives = !(c->inter && (root == MPI_ROOT || root == MPI_PROC_NULL));
  if (!(root_here && on_gpu(sendbuf)) && !(receives && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st;
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
  return finish(st, coll::scatter(sb, sendcount, sendtype, rb, recvcount, recvtype, root, c));
}

Outcome scatterv(const void* sendbuf, CountArray sendcounts, DisplArray displs, const Datatype* sendtype, void* recvbuf,
                 MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c) {
  bool root_here = is_root(c, root);
  bool receives = !(c->inter && (root == MPI_ROOT || root == MPI_PROC_NULL));
  if (!(root_here && on_gpu(sendbuf)) && !(receives && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st;
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
  return finish(st, coll::scatterv(sb, sendcounts, displs, sendtype, rb, recvcount, recvtype, root, c));
}

Outcome allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                  MPI_Count recvcount, const Datatype* recvtype, Communicator* c) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(sendtype, sendcount);
  ByteSpan r = span_of_blocks(recvtype, recvcount, c->peer_count());
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::allgather(sb, sendcount, sendtype, rb, recvcount, recvtype, c));
}

Outcome allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(sendtype, sendcount);
  ByteSpan r = span_of(recvtype, recvcounts, displs, c->peer_count());
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::allgatherv(sb, sendcount, sendtype, rb, recvcounts, displs, recvtype, c));
}

Outcome alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                 const Datatype* recvtype, Communicator* c) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st;
  const void* sb = sendbuf;
  if (sendbuf != MPI_IN_PLACE) {
    ByteSpan s = span_of_blocks(sendtype, sendcount, c->peer_count());
    sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  }
  ByteSpan r = span_of_blocks(recvtype, recvcount, c->peer_count());
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::alltoall(sb, sendcount, sendtype, rb, recvcount, recvtype, c));
}

Outcome alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                  void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype, Communicator* c) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st;
  const void* sb = sendbuf;
  if (sendbuf != MPI_IN_PLACE) {
    ByteSpan s = span_of(sendtype, sendcounts, sdispls, c->peer_count());
    sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  }
  ByteSpan r = span_of(recvtype, recvcounts, rdispls, c->peer_count());
  void* rb = st.stage(recvbuf, r.lo, r.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::alltoallv(sb, sendcounts, sdispls, sendtype, rb, recvcounts, rdispls, recvtype, c));
}

Outcome allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                  Communicator* c) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(type, count);
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = st.stage(recvbuf, s.lo, s.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::allreduce(sb, rb, count, type, op, c));
}

Outcome reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
               Communicator* c) {
  bool root_here = is_root(c, root);
  if (!on_gpu(sendbuf) && !(root_here && on_gpu(recvbuf))) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(type, count);
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  void* rb = root_here ? st.stage(recvbuf, s.lo, s.hi, sendbuf == MPI_IN_PLACE, true) : recvbuf;
  return finish(st, coll::reduce(sb, rb, count, type, op, root, c));
}

Outcome reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type, const Op* op,
                       Communicator* c) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  MPI_Count total = 0;
  for (int i = 0; i < c->size; ++i) total += recvcounts[i];
  HostStaging st;
  ByteSpan all = span_of(type, total);
  const void* sb = st.stage(sendbuf, all.lo, all.hi, true, false);
  ByteSpan mine = sendbuf == MPI_IN_PLACE ? all : span_of(type, recvcounts[c->rank]);
  void* rb = st.stage(recvbuf, mine.lo, mine.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::reduce_scatter(sb, rb, recvcounts, type, op, c));
}

Outcome reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type,
                             const Op* op, Communicator* c) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st;
  ByteSpan all = span_of_blocks(type, recvcount, c->size);
  const void* sb = st.stage(sendbuf, all.lo, all.hi, true, false);
  ByteSpan mine = sendbuf == MPI_IN_PLACE ? all : span_of(type, recvcount);
  void* rb = st.stage(recvbuf, mine.lo, mine.hi, sendbuf == MPI_IN_PLACE, true);
  return finish(st, coll::reduce_scatter_block(sb, rb, recvcount, type, op, c));
}

Outcome scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, bool exclusive,
             Communicator* c) {
  if (!on_gpu(sendbuf) && !on_gpu(recvbuf)) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(type, count);
  const void* sb = st.stage(sendbuf, s.lo, s.hi, true, false);
  // Exscan leaves rank 0's receive buffer undefined: copying it in keeps it as it was.
  void* rb = st.stage(recvbuf, s.lo, s.hi, sendbuf == MPI_IN_PLACE || exclusive, true);
  return finish(st, exclusive ? coll::exscan(sb, rb, count, type, op, c) : coll::scan(sb, rb, count, type, op, c));
}

Outcome reduce_local(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op) {
  if (!on_gpu(in) && !on_gpu(inout)) return std::nullopt;
  HostStaging st;
  ByteSpan s = span_of(type, count);
  const void* i = st.stage(in, s.lo, s.hi, true, false);
  void* io = st.stage(inout, s.lo, s.hi, true, true);
  return finish(st, coll::reduce_local(i, io, count, type, op));
}

Outcome refuse(const char* what, const void* a, const void* b) {
  if (!on_gpu(a) && !on_gpu(b)) return std::nullopt;
  return gpu_buffers_unsupported(what);
}

}  // namespace ferry::coll::gpu
