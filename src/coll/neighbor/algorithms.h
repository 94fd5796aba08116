// Neighbourhood collectives (MPI-3.1 §7.6): each rank sends a block to each
// of its out-neighbours and receives one from each of its in-neighbours, as
// its communicator's topology lists them (base/topology.h).
#pragma once

#include <functional>
#include <vector>

#include "coll/schedule.h"

namespace ferry::coll {

struct Neighbors {
  std::vector<int> in;   // block i comes from in[i]
  std::vector<int> out;  // block j goes to out[j]
  bool cartesian = false;
};
Neighbors neighbors_of(const Communicator& c);

// One block of a buffer.
struct Block {
  const void* data;
  MPI_Count count;
  const Datatype* type;
};

// Builds the exchange: every message in one round. `send_block(j)` and
// `recv_block(i)` say where block j's data is and where block i lands.
void neighbor_exchange(Schedule& s, const Neighbors& n, const std::function<Block(size_t)>& send_block,
                       const std::function<Block(size_t)>& recv_block);

}  // namespace ferry::coll
