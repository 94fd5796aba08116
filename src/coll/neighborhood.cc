// The neighbourhood collectives' entry points (collectives.h, MPI-3.1
// §7.6): one algorithm (coll/neighbor/exchange.cc) for all five; these only
// say where each neighbour's block is, after coll/device_collectives.h has
// had its say on GPU buffers, and run it in the launch form asked for
// (launch.h).
#include "coll/collectives.h"

#include "coll/device_collectives.h"
#include "coll/launch.h"
#include "coll/neighbor/algorithms.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

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
