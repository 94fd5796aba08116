// The entry points of the collectives with no root (collectives.h):
// barrier, allgather(v) and alltoall(v,w), MPI-3.1 §5.3, §5.7-5.8, where
// every rank meets every other. Each asks coll/device_collectives.h first
// (GPU buffers: run on them, or again on host copies), finishes at once
// where nothing moves or nobody else is there (at_once.h), chooses shared
// memory or an algorithm (choose.h; `bytes` in the query is one rank's
// block), and runs its schedule in the launch form asked for (launch.h).
// The v and w forms have one algorithm each; intercommunicators run
// coll/inter's.
#include "coll/collectives.h"

#include "coll/allgather/algorithms.h"
#include "coll/alltoall/algorithms.h"
#include "coll/barrier/algorithms.h"
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

Err run_barrier(Communicator* c, Launch how) {
  // MPI-3.1 §5.3: a barrier of one rank has nobody to wait for.
  if (auto done = at_once("barrier", c, how, c->size == 1, nothing)) return std::move(*done);
  if (c->inter) return run(c, how, [&](Schedule& s) { inter_barrier(s); });
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  hier::Hierarchy* h = nullptr;
  if (Err e = choose_data(Operation::kBarrier, 0, 0, c, how, &a, &seg, &h)) return e;
  if (a == Algorithm::kSharedMemory)
    return how.form == Launch::Form::kBlocking ? shm::barrier(*seg)
                                               : start_shared(c, how, *seg, {shm::Call::Kind::kBarrier});
  if (a == Algorithm::kHierarchical) return hier::barrier(*h, c);
  if (how.form == Launch::Form::kBlocking) return barrier_dissemination_now(c);
  return run(c, how, [&](Schedule& s) { barrier_dissemination(s); });
}

Err run_allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                  MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  if (c->inter) {
    UniformBlocks b = uniform_blocks(c, recvcount);
    return run(c, how, [&](Schedule& s) {
      inter_allgatherv(s, sendbuf, sendcount, sendtype, recvbuf, b.counts.data(), b.displs.data(), recvtype);
    });
  }
  if (auto done = at_once("allgather", c, how, c->size == 1 || recvtype->bytes(recvcount) == 0, [&] {
        return c->size == 1 ? copy_own(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype) : Err();
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  const size_t block = recvtype->bytes(recvcount);
  hier::Hierarchy* h = nullptr;
  if (Err e = choose_data(Operation::kAllgather, block, block, c, how, &a, &seg, &h)) return e;
  if (a == Algorithm::kSharedMemory) {
    if (how.form == Launch::Form::kBlocking)
      return shm::allgather(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return start_shared(c, how, *seg,
                        {shm::Call::Kind::kAllgather, sendbuf, recvbuf, recvcount, recvtype, nullptr, 0, sendcount,
                         sendtype});
  }
  if (a == Algorithm::kHierarchical)
    return hier::allgather(*h, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return run(c, how, [&](Schedule& s) {
    switch (a) {
      case Algorithm::kRecursiveDoubling:
        return allgather_recursive_doubling(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      case Algorithm::kBruck: return allgather_bruck(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      default: return allgather_ring(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }
  });
}

Err run_allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                   CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c,
                   Launch how) {
  if (c->inter)
    return run(c, how, [&](Schedule& s) {
      inter_allgatherv(s, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
    });
  if (auto done = at_once("allgatherv", c, how, c->size == 1, [&] {
        return copy_own(sendbuf, sendcount, sendtype, element(recvbuf, static_cast<size_t>(displs[0]), recvtype),
                        recvcounts[0], recvtype);
      }))
    return std::move(*done);
  return run(c, how, [&](Schedule& s) {
    allgatherv_ring(s, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
  });
}

Err run_alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
                 const Datatype* recvtype, Communicator* c, Launch how) {
  if (c->inter) {
    PerPeer send = per_peer(c, sendcount, sendtype), recv = per_peer(c, recvcount, recvtype);
    return run(c, how, [&](Schedule& s) {
      inter_alltoallw(s, sendbuf, send.counts.data(), send.displs.data(), send.types.data(), recvbuf,
                      recv.counts.data(), recv.displs.data(), recv.types.data());
    });
  }
  if (auto done = at_once("alltoall", c, how, c->size == 1 || recvtype->bytes(recvcount) == 0, [&] {
        return c->size == 1 ? copy_own(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype) : Err();
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  const size_t block = recvtype->bytes(recvcount);
  if (Err e = choose_data(Operation::kAlltoall, block, block * static_cast<size_t>(c->size), c, how, &a, &seg))
    return e;
  if (a == Algorithm::kSharedMemory) {
    if (how.form == Launch::Form::kBlocking)
      return shm::alltoall(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return start_shared(c, how, *seg,
                        {shm::Call::Kind::kAlltoall, sendbuf, recvbuf, recvcount, recvtype, nullptr, 0, sendcount,
                         sendtype});
  }
  return run(c, how, [&](Schedule& s) {
    if (a == Algorithm::kBruck) return alltoall_bruck(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    alltoall_pairwise(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  });
}

Err run_alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                  void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype,
                  Communicator* c, Launch how) {
  if (c->inter) {
    PerPeer send = per_peer(c, sendcounts, sdispls, sendtype), recv = per_peer(c, recvcounts, rdispls, recvtype);
    return run(c, how, [&](Schedule& s) {
      inter_alltoallw(s, sendbuf, send.counts.data(), send.displs.data(), send.types.data(), recvbuf,
                      recv.counts.data(), recv.displs.data(), recv.types.data());
    });
  }
  if (auto done = at_once("alltoallv", c, how, c->size == 1, [&] {
        // In place: the send arguments are ignored (MPI-3.1 §5.8), and the data is there.
        if (sendbuf == MPI_IN_PLACE) return Err();
        return copy_own(element(sendbuf, static_cast<size_t>(sdispls[0]), sendtype), sendcounts[0], sendtype,
                        element(recvbuf, static_cast<size_t>(rdispls[0]), recvtype), recvcounts[0], recvtype);
      }))
    return std::move(*done);
  return run(c, how, [&](Schedule& s) {
    alltoallv_pairwise(s, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  });
}

Err run_alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* const sendtypes[],
                  void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* const recvtypes[],
                  Communicator* c, Launch how) {
  if (c->inter)
    return run(c, how, [&](Schedule& s) {
      inter_alltoallw(s, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
    });
  if (auto done = at_once("alltoallw", c, how, c->size == 1, [&] {
        if (sendbuf == MPI_IN_PLACE) return Err();
        return copy_own(static_cast<const char*>(sendbuf) + sdispls[0], sendcounts[0], sendtypes[0],
                        static_cast<char*>(recvbuf) + rdispls[0], recvcounts[0], recvtypes[0]);
      }))
    return std::move(*done);
  return run(c, how, [&](Schedule& s) {
    alltoallw_pairwise(s, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
  });
}

}  // namespace

Err barrier(Communicator* c, Launch how) { return run_barrier(c, how); }

// allgather past no_data_now (collectives.h).
Err allgather_with_data(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                        MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  // Every rank asks, whatever its buffers: the one pass runs only if all can.
  if (!c->inter && gpu::onepass::big_enough(recvtype->bytes(recvcount) * static_cast<size_t>(c->size)))
    if (std::optional<Err> done =
            gpu::onepass::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how))
      return std::move(*done);
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
      }))
    return std::move(*staged);
  return run_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
}
Err allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, CountArray recvcounts,
               DisplArray displs, const Datatype* recvtype, Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c, how);
      }))
    return std::move(*staged);
  return run_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c, how);
}
// alltoall past no_data_now (collectives.h).
Err alltoall_with_data(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                       MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
      }))
    return std::move(*staged);
  return run_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
}
Err alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype, void* recvbuf,
              CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype, Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c, how);
      }))
    return std::move(*staged);
  return run_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c, how);
}
Err alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* const sendtypes[],
              void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* const recvtypes[],
              Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c, how);
      }))
    return std::move(*staged);
  return run_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c, how);
}

}  // namespace ferry::coll
