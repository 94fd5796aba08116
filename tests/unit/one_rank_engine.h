// For unit tests that run the point-to-point engine in one process, a one-rank job: what their
// fixtures' SetUp does to start it (their TearDown calls p2p::finalize()).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/communicator.h"
#include "mpi.h"
#include "p2p/engine.h"
#include "transport/transport.h"

namespace ferry::p2p {

// init(0, 1); the transport that `make(packet_handler())` returns becomes the route to rank 0,
// with messages up to `eager_limit` bytes sent eagerly; `comm` is described as that rank's
// MPI_COMM_WORLD (context 0). Returns the transport, which the test keeps until finalize().
template <class Make>
auto start_one_rank_engine(size_t eager_limit, Communicator* comm, Make make) {
  init(0, 1);
  auto self = make(packet_handler());
  set_route(0, Route{self.get(), transport::Reach{eager_limit, SIZE_MAX}});
  comm->handle = MPI_COMM_WORLD;
  comm->context = 0;
  comm->rank = 0;
  comm->size = 1;
  return self;
}

}  // namespace ferry::p2p
