// The rooted collectives' entry points (collectives.h): bcast, gather(v)
// and scatter(v), MPI-3.1 §5.4-5.6. Each asks coll/device_collectives.h
// first (GPU buffers: run on them, or again on host copies), finishes at
// once where nothing moves (at_once.h), chooses shared memory or an
// algorithm (choose.h; `bytes` in the query is what one rank sends), and
// runs its schedule in the launch form asked for (launch.h). The v forms
// have one algorithm each; intercommunicators run coll/inter's.
#include "coll/collectives.h"

#include "coll/bcast/algorithms.h"
#include "coll/gather/algorithms.h"
#include "coll/scatter/algorithms.h"
#include "coll/at_once.h"
#include "coll/choose.h"
#include "coll/device_collectives.h"
#include "coll/device_onepass.h"
#include "coll/hier/algorithms.h"
#include "coll/inter/algorithms.h"
#include "coll/inter/uniform_blocks.h"
#include "coll/launch.h"
#include "coll/shm/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {
namespace {

Err run_bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how) {
  if (c->inter) return run(c, how, [&](Schedule& s) { inter_bcast(s, buf, count, type, root); });
  if (auto done = at_once("bcast", c, how, c->size == 1 || type->bytes(count) == 0, nothing)) return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  const size_t bytes = type->bytes(count);
  hier::Hierarchy* h = nullptr;
  if (Err e = choose_data(Operation::kBcast, bytes, bytes, c, how, &a, &seg, &h)) return e;
  if (a == Algorithm::kSharedMemory) {
    if (how.form == Launch::Form::kBlocking) return shm::bcast(*seg, buf, count, type, root);
    return start_shared(c, how, *seg, {shm::Call::Kind::kBcast, nullptr, buf, count, type, nullptr, root});
  }
  if (a == Algorithm::kHierarchical) return hier::bcast(*h, c, buf, count, type, root);
  return run(c, how, [&](Schedule& s) {
    switch (a) {
      case Algorithm::kScatterRingAllgather: return bcast_scatter_ring_allgather(s, buf, count, type, root);
      case Algorithm::kPipelinedChain:
        return bcast_pipelined_chain(s, buf, count, type, root, bcast_chain_segment(type->bytes(count)));
      default: return bcast_binomial(s, buf, count, type, root);
    }
  });
}

Err run_gather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
               const Datatype* recvtype, int root, Communicator* c, Launch how) {
  if (c->inter) {
    UniformBlocks b = uniform_blocks(c, recvcount);
    return run(c, how, [&](Schedule& s) {
      inter_gatherv(s, sendbuf, sendcount, sendtype, recvbuf, b.counts.data(), b.displs.data(), recvtype, root);
    });
  }
  size_t bytes = c->rank == root ? recvtype->bytes(recvcount) : sendtype->bytes(sendcount);
  if (auto done = at_once("gather", c, how, c->size == 1 || bytes == 0, [&] {
        return c->size == 1 ? copy_own(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype) : Err();
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  if (Err e = choose_data(Operation::kGather, bytes, bytes, c, how, &a, &seg)) return e;
  if (a == Algorithm::kSharedMemory) {
    if (how.form == Launch::Form::kBlocking)
      return shm::gather(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    return start_shared(c, how, *seg,
                        {shm::Call::Kind::kGather, sendbuf, recvbuf, recvcount, recvtype, nullptr, root, sendcount,
                         sendtype});
  }
  return run(c, how, [&](Schedule& s) {
    if (a == Algorithm::kLinear) return gather_linear(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    gather_binomial(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  });
}

Err run_gatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                CountArray recvcounts, DisplArray displs, const Datatype* recvtype, int root, Communicator* c,
                Launch how) {
  if (c->inter)
    return run(c, how, [&](Schedule& s) {
      inter_gatherv(s, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
    });
  if (auto done = at_once("gatherv", c, how, c->size == 1, [&] {
        return copy_own(sendbuf, sendcount, sendtype, element(recvbuf, static_cast<size_t>(displs[0]), recvtype),
                        recvcounts[0], recvtype);
      }))
    return std::move(*done);
  return run(c, how, [&](Schedule& s) {
    gatherv_linear(s, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
  });
}

Err run_scatter(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                const Datatype* recvtype, int root, Communicator* c, Launch how) {
  if (c->inter) {
    UniformBlocks b = uniform_blocks(c, sendcount);
    return run(c, how, [&](Schedule& s) {
      inter_scatterv(s, sendbuf, b.counts.data(), b.displs.data(), sendtype, recvbuf, recvcount, recvtype, root);
    });
  }
  size_t bytes = c->rank == root ? sendtype->bytes(sendcount) : recvtype->bytes(recvcount);
  if (auto done = at_once("scatter", c, how, c->size == 1 || bytes == 0, [&] {
        return c->size == 1 ? copy_own(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype) : Err();
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  if (Err e = choose_data(Operation::kScatter, bytes, bytes * static_cast<size_t>(c->size), c, how, &a, &seg))
    return e;
  if (a == Algorithm::kSharedMemory) {
    if (how.form == Launch::Form::kBlocking)
      return shm::scatter(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    return start_shared(c, how, *seg,
                        {shm::Call::Kind::kScatter, sendbuf, recvbuf, recvcount, recvtype, nullptr, root, sendcount,
                         sendtype});
  }
  return run(c, how, [&](Schedule& s) {
    if (a == Algorithm::kLinear)
      return scatter_linear(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    scatter_binomial(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  });
}

Err run_scatterv(const void* sendbuf, CountArray sendcounts, DisplArray displs, const Datatype* sendtype,
                 void* recvbuf, MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c,
                 Launch how) {
  if (c->inter)
    return run(c, how, [&](Schedule& s) {
      inter_scatterv(s, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
    });
  if (auto done = at_once("scatterv", c, how, c->size == 1, [&] {
        return copy_own(element(sendbuf, static_cast<size_t>(displs[0]), sendtype), sendcounts[0], sendtype, recvbuf,
                        recvcount, recvtype);
      }))
    return std::move(*done);
  return run(c, how, [&](Schedule& s) {
    scatterv_linear(s, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
  });
}

}  // namespace

// bcast past no_data_now (collectives.h).
Err bcast_with_data(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how) {
  // (An intercommunicator's other group may pass no type: MPI_PROC_NULL.)
  if (!c->inter) [[likely]] {
    const size_t bytes = type->bytes(count);
    if (shm::CommSegment* seg = shared_now(Operation::kBcast, bytes, bytes, c, how)) [[likely]]
      return shm::bcast(*seg, buf, count, type, root);
  }
  // Every rank asks, whatever its buffer: the one pass runs only if all can.
  if (!c->inter && gpu::onepass::big_enough(type->bytes(count)))
    if (std::optional<Err> done = gpu::onepass::bcast(buf, count, type, root, c, how)) return std::move(*done);
  if (gpu::Outcome staged =
          gpu::for_launch(how, buf, nullptr, [&] { return gpu::bcast(buf, count, type, root, c, how); }))
    return std::move(*staged);
  return run_bcast(buf, count, type, root, c, how);
}
// gather past no_data_now (collectives.h).
Err gather_with_data(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                     MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how) {
  if (!c->inter) [[likely]] {
    const size_t bytes = c->rank == root ? recvtype->bytes(recvcount) : sendtype->bytes(sendcount);
    if (shm::CommSegment* seg = shared_now(Operation::kGather, bytes, bytes, c, how)) [[likely]]
      return shm::gather(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  }
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, how);
      }))
    return std::move(*staged);
  return run_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, how);
}
Err gatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, CountArray recvcounts,
            DisplArray displs, const Datatype* recvtype, int root, Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c, how);
      }))
    return std::move(*staged);
  return run_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c, how);
}
// scatter past no_data_now (collectives.h).
Err scatter_with_data(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                      MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how) {
  if (!c->inter) [[likely]] {
    const size_t bytes = c->rank == root ? sendtype->bytes(sendcount) : recvtype->bytes(recvcount);
    if (shm::CommSegment* seg = shared_now(Operation::kScatter, bytes, bytes * static_cast<size_t>(c->size), c, how))
        [[likely]]
      return shm::scatter(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  }
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, how);
      }))
    return std::move(*staged);
  return run_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c, how);
}
Err scatterv(const void* sendbuf, CountArray sendcounts, DisplArray displs, const Datatype* sendtype, void* recvbuf,
             MPI_Count recvcount, const Datatype* recvtype, int root, Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, c, how);
      }))
    return std::move(*staged);
  return run_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, c, how);
}

}  // namespace ferry::coll
