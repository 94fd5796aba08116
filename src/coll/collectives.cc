// The collective operations as core functions (collectives.h): each picks an
// algorithm, builds its schedule, and runs it (blocking) or hands it to the
// progress engine (the i-forms).
//
// Every rank builds exactly one Schedule per call, even when it has nothing
// to move: the Schedule takes the communicator's next collective tag, and
// the ranks' tags must stay in step.
//
// GPU buffers: each entry point first asks coll/device_collectives.h, which
// runs the collective on the GPU buffers themselves or runs the same
// function again on host copies of them (the nonblocking and persistent
// forms with the copies as rounds of their schedule); with no GPU driver
// loaded that is one branch.
#include "coll/collectives.h"

#include <memory>
#include <vector>

#include "coll/allgather/algorithms.h"
#include "coll/allreduce/algorithms.h"
#include "coll/alltoall/algorithms.h"
#include "coll/at_once.h"
#include "coll/barrier/algorithms.h"
#include "coll/bcast/algorithms.h"
#include "coll/device_buffers.h"
#include "coll/device_collectives.h"
#include "coll/gather/algorithms.h"
#include "coll/inter/algorithms.h"
#include "coll/neighbor/algorithms.h"
#include "coll/persistent.h"
#include "coll/reduce/algorithms.h"
#include "coll/reduce_scatter/algorithms.h"
#include "coll/scan/algorithms.h"
#include "coll/scatter/algorithms.h"
#include "coll/schedule.h"
#include "coll/select.h"
#include "coll/shm/agreement.h"
#include "coll/shm/algorithms.h"
#include "coll/shm/segment.h"
#include "base/revocation.h"
#include "coll/typed_buffer.h"
#include "device/device.h"

namespace ferry::coll {
namespace {

// The blocking form: build, then run to the end.
template <typename Build>
Err run_blocking(Communicator* c, Build&& build) {
  Schedule s(c);
  build(s);
  return s.run();
}

// Builds the schedule; where the call staged GPU buffers through host
// copies (coll/device_buffers.h, deferred), the copies in are its first
// round and the copies out its last, so that each start of a persistent
// one copies again, and the schedule keeps the host copies alive.
template <typename Build>
void build_with_staging(Schedule& s, Build&& build) {
  std::shared_ptr<StagedBuffers> staged = take_deferred_staging();
  if (staged) {
    s.local_checked([staged] { return staged->copy_in(); });
    s.end_round();
  }
  build(s);
  if (staged) {
    s.local_checked([staged] { return staged->copy_out(); });
    s.end_round();
  }
}

// The nonblocking form: build, then start; the progress engine finishes it.
template <typename Build>
Err run_nonblocking(Communicator* c, Request** request, Build&& build) {
  auto s = std::make_unique<Schedule>(c);
  build_with_staging(*s, build);
  Err e;
  *request = start_nonblocking(std::move(s), &e);
  return e;
}

// The persistent form: build once; each MPI_Start runs it (coll/persistent.h).
template <typename Build>
Err run_persistent(Communicator* c, Request** request, Build&& build) {
  auto s = std::make_unique<Schedule>(c);
  build_with_staging(*s, build);
  *request = make_persistent(std::move(s));
  return {};
}

// --- Data movement and barrier ---------------------------------------------------
// As for the reductions below, the algorithm is chosen before the schedule
// is built; `bytes` in the query is what one rank sends (select.cc). The v
// and w forms have one algorithm each. Each operation is written once as
// run_<operation>, run as `how` says.

// Runs the schedule that `build` makes as `how` says.
template <typename Build>
Err run(Communicator* c, Launch how, Build&& build) {
  switch (how.form) {
    case Launch::Form::kNonblocking: return run_nonblocking(c, how.request, build);
    case Launch::Form::kPersistent: return run_persistent(c, how.request, build);
    default: return run_blocking(c, build);
  }
}

// The communicator's shared-memory segment (coll/shm) if this call could
// run there at some size: blocking, on an eligible communicator, and host
// memory only (while a GPU driver is loaded a rank may pass device
// buffers, which loads and stores cannot touch; the message-based
// algorithms know device memory). Made at the first such call whatever its
// size: nothing here depends on what a rank passes (MPI-3.1 §5.12: a
// blocking collective never matches a nonblocking one), so every rank makes
// it at the same call, even when an erroneous program's ranks disagree on
// the sizes (shm/agreement.h). nullptr if it could not be made (every rank
// learns that alike).
shm::CommSegment* segment_if_possible(Communicator* c, Launch how) {
  if (how.form != Launch::Form::kBlocking || device::enabled() || !shm::eligible(c)) return nullptr;
  // A revoked communicator's collectives must fail with MPIX_ERR_REVOKED at
  // every member (p2p/revoke.h): the message path refuses at its first send
  // or receive, where flags in shared memory would wait for ranks that left.
  if (revocation::is_revoked(c->context)) [[unlikely]] return nullptr;
  return shm::segment_for(c);
}

// select() for a call whose shared-memory form puts `cell_bytes` in each
// writer's cell (`dense`: the data as it is, for the reductions), with the
// segment in *seg where shared memory was chosen. The choice rests on
// q.bytes, the bytes of the type signature, which MPI requires to agree
// (never on counts or extents). Where the communicator has a segment and
// messages were chosen, the ranks first check on the segment that none
// chose shared memory and that their bytes agree (shm/agreement.h): an
// erroneous program fails there instead of hanging.
Err select_shared(Operation o, Query q, size_t cell_bytes, bool dense, Communicator* c, Launch how, Algorithm* a,
                  shm::CommSegment** seg) {
  *seg = segment_if_possible(c, how);
  q.shared_memory = *seg != nullptr && dense && cell_bytes <= (*seg)->cell_bytes();
  if (Err e = select(o, q, a)) return e;
  if (*a == Algorithm::kSharedMemory || *seg == nullptr) return {};
  shm::CommSegment* s = *seg;
  *seg = nullptr;
  // A barrier has no data to disagree on.
  if (o == Operation::kBarrier) return {};
  return shm::agree_on_messages(*s, q.bytes);
}

// `bytes`: what one rank sends (select.cc); `cell_bytes`: what a writer
// puts in its cell on the shared-memory path.
Err choose_data(Operation o, size_t bytes, size_t cell_bytes, Communicator* c, Launch how, Algorithm* a,
                shm::CommSegment** seg) {
  return select_shared(o, Query{bytes, c->size, true}, cell_bytes, true, c, how, a, seg);
}

// --- Intercommunicators: the blocks of the remote group ----------------------------
// The non-v forms as their v forms (coll/inter/algorithms.h): one block of
// `count` per remote rank, back to back.
struct Blocks {
  std::vector<MPI_Count> counts, displs;
};
Blocks uniform_blocks(const Communicator* c, MPI_Count count) {
  Blocks b;
  for (int j = 0; j < c->remote_size; ++j) {
    b.counts.push_back(count);
    b.displs.push_back(j * count);
  }
  return b;
}
// Alltoall and alltoallv as alltoallw: byte displacements, a type per peer.
struct PerPeer {
  std::vector<MPI_Count> counts, displs;
  std::vector<const Datatype*> types;
};
PerPeer per_peer(const Communicator* c, CountArray counts, DisplArray displs, const Datatype* type) {
  PerPeer p;
  for (int j = 0; j < c->remote_size; ++j) {
    p.counts.push_back(counts[j]);
    p.displs.push_back(displs[j] * type->extent);
    p.types.push_back(type);
  }
  return p;
}
PerPeer per_peer(const Communicator* c, MPI_Count count, const Datatype* type) {
  Blocks b = uniform_blocks(c, count);
  return per_peer(c, b.counts.data(), b.displs.data(), type);
}

Err run_barrier(Communicator* c, Launch how) {
  // MPI-3.1 §5.3: a barrier of one rank has nobody to wait for.
  if (auto done = at_once("barrier", c, how, c->size == 1, nothing)) return std::move(*done);
  if (c->inter) return run(c, how, [&](Schedule& s) { inter_barrier(s); });
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  if (Err e = choose_data(Operation::kBarrier, 0, 0, c, how, &a, &seg)) return e;
  if (a == Algorithm::kSharedMemory) return shm::barrier(*seg), Err();
  if (how.form == Launch::Form::kBlocking) return barrier_dissemination_now(c);
  return run(c, how, [&](Schedule& s) { barrier_dissemination(s); });
}

Err run_bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how) {
  if (c->inter) return run(c, how, [&](Schedule& s) { inter_bcast(s, buf, count, type, root); });
  if (auto done = at_once("bcast", c, how, c->size == 1 || type->bytes(count) == 0, nothing)) return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  const size_t bytes = type->bytes(count);
  if (Err e = choose_data(Operation::kBcast, bytes, bytes, c, how, &a, &seg)) return e;
  if (a == Algorithm::kSharedMemory) return shm::bcast(*seg, buf, count, type, root);
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
    Blocks b = uniform_blocks(c, recvcount);
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
  if (a == Algorithm::kSharedMemory)
    return shm::gather(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  return run(c, how, [&](Schedule& s) {
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
    Blocks b = uniform_blocks(c, sendcount);
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
  if (a == Algorithm::kSharedMemory)
    return shm::scatter(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  return run(c, how, [&](Schedule& s) {
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

Err run_allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                  MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  if (c->inter) {
    Blocks b = uniform_blocks(c, recvcount);
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
  if (Err e = choose_data(Operation::kAllgather, block, block, c, how, &a, &seg)) return e;
  if (a == Algorithm::kSharedMemory)
    return shm::allgather(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
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
  if (a == Algorithm::kSharedMemory)
    return shm::alltoall(*seg, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
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

Err bcast(void* buf, MPI_Count count, const Datatype* type, int root, Communicator* c, Launch how) {
  if (gpu::Outcome staged =
          gpu::for_launch(how, buf, nullptr, [&] { return gpu::bcast(buf, count, type, root, c, how); }))
    return std::move(*staged);
  return run_bcast(buf, count, type, root, c, how);
}
Err gather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
           const Datatype* recvtype, int root, Communicator* c, Launch how) {
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
Err scatter(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
            const Datatype* recvtype, int root, Communicator* c, Launch how) {
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
Err allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
              const Datatype* recvtype, Communicator* c, Launch how) {
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
Err alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf, MPI_Count recvcount,
             const Datatype* recvtype, Communicator* c, Launch how) {
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

// --- Reductions: algorithm choice ----------------------------------------------
// The algorithm is chosen before the schedule is built, so that an unknown
// FERRY_<OPERATION>_ALGORITHM fails the call on every rank alike before any
// rank takes a collective tag. Calls with nothing to combine (no elements,
// one rank) skip the table and only copy what the operation defines.
namespace {

// The algorithm for a reduction of `bytes` per rank; nothing to choose when
// `trivial`.
Err choose(Operation o, bool trivial, size_t bytes, const Op* op, Communicator* c, Algorithm* a) {
  if (trivial) return {};
  return select(o, Query{bytes, c->size, op->commutative}, a);
}

// The same for reduce and allreduce, which coll/shm may run when the data
// is one dense run (the cells hold the bytes as they are, and the
// operation applies to them).
Err choose_reduction(Operation o, size_t bytes, const Datatype* type, const Op* op, Communicator* c, Launch how,
                     Algorithm* a, shm::CommSegment** seg) {
  return select_shared(o, Query{bytes, c->size, op->commutative}, bytes, type->contiguous, c, how, a, seg);
}

// Runs a reduction's schedule as `how` says.
template <typename Build>
Err run_reduction(Communicator* c, Launch how, const Op* op, Build&& build) {
  if (how.form == Launch::Form::kBlocking) return run_blocking(c, build);
  // MPI-4.0 §6.13: the operation stays in use until the request is freed.
  if (how.form == Launch::Form::kPersistent)
    return run_persistent(c, how.request, [&](Schedule& s) {
      s.hold(op);
      build(s);
    });
  Request** request = how.request;
  // MPI-3.1 §5.9.5: freeing the operation does not affect a nonblocking
  // call that uses it. (Released by the last round: a schedule that fails
  // midway keeps its reference.)
  ops::retain(*op);
  return run_nonblocking(c, request, [&](Schedule& s) {
    build(s);
    s.local([op] { ops::release(*op); });
    s.end_round();
  });
}

void build_allreduce(Schedule& s, Algorithm a, const void* sendbuf, void* recvbuf, MPI_Count count,
                     const Datatype* type, const Op* op) {
  if (count == 0) return;
  if (s.size() == 1) return copy_input(s, sendbuf, recvbuf, count, type);
  switch (a) {
    case Algorithm::kRing: return allreduce_ring(s, sendbuf, recvbuf, count, type, op);
    case Algorithm::kTree: return allreduce_tree(s, sendbuf, recvbuf, count, type, op);
    case Algorithm::kRabenseifner: return allreduce_rabenseifner(s, sendbuf, recvbuf, count, type, op);
    default: return allreduce_recursive_doubling(s, sendbuf, recvbuf, count, type, op);
  }
}

Err do_allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                 Communicator* c, Launch how) {
  if (c->inter)
    return run_reduction(c, how, op, [&](Schedule& s) { inter_allreduce(s, sendbuf, recvbuf, count, type, op); });
  if (auto done = at_once("allreduce", c, how, count == 0 || c->size == 1, [&] {
        return count == 0 ? Err() : copy_own(sendbuf, count, type, recvbuf, count, type);
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  if (Err e = choose_reduction(Operation::kAllreduce, type->bytes(count), type, op, c, how, &a, &seg)) return e;
  if (a == Algorithm::kSharedMemory) return shm::allreduce(*seg, sendbuf, recvbuf, count, type, op);
  return run_reduction(c, how, op,
                       [&](Schedule& s) { build_allreduce(s, a, sendbuf, recvbuf, count, type, op); });
}

void build_reduce(Schedule& s, Algorithm a, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                  const Op* op, int root) {
  if (count == 0) return;
  if (s.size() == 1) return copy_input(s, sendbuf, recvbuf, count, type);
  switch (a) {
    case Algorithm::kReduceScatterGather: return reduce_scatter_gather(s, sendbuf, recvbuf, count, type, op, root);
    default: return reduce_binomial(s, sendbuf, recvbuf, count, type, op, root);
  }
}

Err do_reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
              Communicator* c, Launch how) {
  if (c->inter)
    return run_reduction(c, how, op,
                         [&](Schedule& s) { inter_reduce(s, sendbuf, recvbuf, count, type, op, root); });
  if (auto done = at_once("reduce", c, how, count == 0 || c->size == 1, [&] {
        return count == 0 ? Err() : copy_own(sendbuf, count, type, recvbuf, count, type);
      }))
    return std::move(*done);
  Algorithm a{};
  shm::CommSegment* seg = nullptr;
  if (Err e = choose_reduction(Operation::kReduce, type->bytes(count), type, op, c, how, &a, &seg)) return e;
  if (a == Algorithm::kSharedMemory) return shm::reduce(*seg, sendbuf, recvbuf, count, type, op, root);
  return run_reduction(c, how, op,
                       [&](Schedule& s) { build_reduce(s, a, sendbuf, recvbuf, count, type, op, root); });
}

void build_reduce_scatter(Schedule& s, Algorithm a, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                          size_t total, const Datatype* type, const Op* op) {
  if (total == 0) return;
  if (s.size() == 1) return copy_input(s, sendbuf, recvbuf, recvcounts[0], type);
  switch (a) {
    case Algorithm::kPairwise: return reduce_scatter_pairwise(s, sendbuf, recvbuf, recvcounts, type, op);
    default: return reduce_scatter_recursive_halving(s, sendbuf, recvbuf, recvcounts, type, op);
  }
}

Err do_reduce_scatter(Operation o, const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type,
                      const Op* op, Communicator* c, Launch how) {
  if (c->inter)
    return run_reduction(c, how, op,
                         [&](Schedule& s) { inter_reduce_scatter(s, sendbuf, recvbuf, recvcounts, type, op); });
  size_t total = 0;
  for (int r = 0; r < c->size; ++r) total += static_cast<size_t>(recvcounts[r]);
  if (auto done = at_once(name(o), c, how, total == 0 || c->size == 1, [&] {
        return total == 0 ? Err() : copy_own(sendbuf, recvcounts[0], type, recvbuf, recvcounts[0], type);
      }))
    return std::move(*done);
  Algorithm a{};
  if (Err e = choose(o, total == 0 || c->size == 1, total * type->size, op, c, &a)) return e;
  return run_reduction(c, how, op, [&](Schedule& s) {
    build_reduce_scatter(s, a, sendbuf, recvbuf, recvcounts, total, type, op);
  });
}

void build_scan(Schedule& s, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                bool exclusive) {
  if (count == 0) return;
  // One rank: the scan is the input; the exscan is undefined (MPI-3.1 §5.11.2).
  if (s.size() == 1) return exclusive ? void() : copy_input(s, sendbuf, recvbuf, count, type);
  scan_recursive_doubling(s, sendbuf, recvbuf, count, type, op, exclusive);
}

Err do_scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, bool exclusive,
            Communicator* c, Launch how) {
  if (c->inter) return fail(MPI_ERR_COMM, "scans are not defined on intercommunicators (MPI-3.1 §5.11)");
  // One rank: the scan is the input; the exscan is undefined (MPI-3.1 §5.11.2).
  if (auto done = at_once(exclusive ? "exscan" : "scan", c, how, count == 0 || c->size == 1, [&] {
        return count == 0 || exclusive ? Err() : copy_own(sendbuf, count, type, recvbuf, count, type);
      }))
    return std::move(*done);
  Algorithm a{};
  if (Err e = choose(exclusive ? Operation::kExscan : Operation::kScan, count == 0 || c->size == 1,
                     type->bytes(count), op, c, &a))
    return e;
  return run_reduction(c, how, op,
                       [&](Schedule& s) { build_scan(s, sendbuf, recvbuf, count, type, op, exclusive); });
}

}  // namespace

// --- Reductions: entry points ---------------------------------------------------

Err allreduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, Communicator* c,
              Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::allreduce(sendbuf, recvbuf, count, type, op, c, how);
      }))
    return std::move(*staged);
  return do_allreduce(sendbuf, recvbuf, count, type, op, c, how);
}

Err reduce_local(const void* in, void* inout, MPI_Count count, const Datatype* type, const Op* op) {
  if (device::enabled())
    if (gpu::Outcome staged = gpu::reduce_local(in, inout, count, type, op)) return std::move(*staged);
  apply(*op, in, inout, count, *type);
  return {};
}

Err iallreduce_both_groups(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op,
                           Communicator* inter, Request** request) {
  return run_reduction(inter, nonblocking(request), op, [&](Schedule& s) {
    inter_allreduce_both_groups(s, sendbuf, recvbuf, count, type, op);
  });
}

Err reduce(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, int root,
           Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::reduce(sendbuf, recvbuf, count, type, op, root, c, how);
      }))
    return std::move(*staged);
  return do_reduce(sendbuf, recvbuf, count, type, op, root, c, how);
}

Err reduce_scatter(const void* sendbuf, void* recvbuf, CountArray recvcounts, const Datatype* type, const Op* op,
                   Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, c, how);
      }))
    return std::move(*staged);
  return do_reduce_scatter(Operation::kReduceScatter, sendbuf, recvbuf, recvcounts, type, op, c, how);
}

// The schedule reads the counts while it is built, so a local array will do.
Err reduce_scatter_block(const void* sendbuf, void* recvbuf, MPI_Count recvcount, const Datatype* type, const Op* op,
                         Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, c, how);
      }))
    return std::move(*staged);
  std::vector<MPI_Count> counts(static_cast<size_t>(c->size), recvcount);
  return do_reduce_scatter(Operation::kReduceScatterBlock, sendbuf, recvbuf, counts.data(), type, op, c, how);
}

Err scan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, Communicator* c,
         Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::scan(sendbuf, recvbuf, count, type, op, false, c, how);
      }))
    return std::move(*staged);
  return do_scan(sendbuf, recvbuf, count, type, op, false, c, how);
}
Err exscan(const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type, const Op* op, Communicator* c,
           Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::scan(sendbuf, recvbuf, count, type, op, true, c, how);
      }))
    return std::move(*staged);
  return do_scan(sendbuf, recvbuf, count, type, op, true, c, how);
}

// --- Neighbourhood collectives ----------------------------------------------------
// One algorithm (coll/neighbor/exchange.cc); these only say where the blocks are.

Err neighbor_allgather(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                       MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
      }))
    return std::move(*staged);
  return run(c, how, [&](Schedule& s) {
    neighbor_exchange(
        s, neighbors_of(*c),
        [&](size_t) {
          return Block{sendbuf, sendcount, sendtype};
        },
        [&](size_t i) {
          return Block{element(recvbuf, i * static_cast<size_t>(recvcount), recvtype), recvcount, recvtype};
        });
  });
}

Err neighbor_allgatherv(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                        CountArray recvcounts, DisplArray displs, const Datatype* recvtype, Communicator* c,
                        Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c, how);
      }))
    return std::move(*staged);
  return run(c, how, [&](Schedule& s) {
    neighbor_exchange(
        s, neighbors_of(*c), [&](size_t) { return Block{sendbuf, sendcount, sendtype}; },
        [&](size_t i) {
          return Block{element(recvbuf, static_cast<size_t>(displs[i]), recvtype), recvcounts[i], recvtype};
        });
  });
}

Err neighbor_alltoall(const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                      MPI_Count recvcount, const Datatype* recvtype, Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c, how);
      }))
    return std::move(*staged);
  return run(c, how, [&](Schedule& s) {
    neighbor_exchange(
        s, neighbors_of(*c),
        [&](size_t j) {
          return Block{element(sendbuf, j * static_cast<size_t>(sendcount), sendtype), sendcount, sendtype};
        },
        [&](size_t i) {
          return Block{element(recvbuf, i * static_cast<size_t>(recvcount), recvtype), recvcount, recvtype};
        });
  });
}

Err neighbor_alltoallv(const void* sendbuf, CountArray sendcounts, DisplArray sdispls, const Datatype* sendtype,
                       void* recvbuf, CountArray recvcounts, DisplArray rdispls, const Datatype* recvtype,
                       Communicator* c, Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c, how);
      }))
    return std::move(*staged);
  return run(c, how, [&](Schedule& s) {
    neighbor_exchange(
        s, neighbors_of(*c),
        [&](size_t j) {
          return Block{element(sendbuf, static_cast<size_t>(sdispls[j]), sendtype), sendcounts[j], sendtype};
        },
        [&](size_t i) {
          return Block{element(recvbuf, static_cast<size_t>(rdispls[i]), recvtype), recvcounts[i], recvtype};
        });
  });
}

Err neighbor_alltoallw(const void* sendbuf, CountArray sendcounts, DisplArray sdispls,
                       const Datatype* const sendtypes[], void* recvbuf, CountArray recvcounts,
                       DisplArray rdispls, const Datatype* const recvtypes[], Communicator* c,
                       Launch how) {
  if (gpu::Outcome staged = gpu::for_launch(how, sendbuf, recvbuf, [&] {
        return gpu::neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c, how);
      }))
    return std::move(*staged);
  return run(c, how, [&](Schedule& s) {
    neighbor_exchange(
        s, neighbors_of(*c),
        [&](size_t j) { return Block{static_cast<const char*>(sendbuf) + sdispls[j], sendcounts[j], sendtypes[j]}; },
        [&](size_t i) { return Block{static_cast<char*>(recvbuf) + rdispls[i], recvcounts[i], recvtypes[i]}; });
  });
}

}  // namespace ferry::coll
