// The non-v forms of the intercommunicator collectives as their v and w
// forms (coll/inter/algorithms.h): one block of `count` per remote rank,
// back to back; alltoall and alltoallv as alltoallw, with byte
// displacements and a type per peer. Used by the entry points in
// coll/rooted.cc and coll/all_ranks.cc.
#pragma once

#include <vector>

#include "base/communicator.h"
#include "base/datatype.h"
#include "coll/count_array.h"

namespace ferry::coll {

struct UniformBlocks {
  std::vector<MPI_Count> counts, displs;
};
inline UniformBlocks uniform_blocks(const Communicator* c, MPI_Count count) {
  UniformBlocks b;
  for (int j = 0; j < c->remote_size; ++j) {
    b.counts.push_back(count);
    b.displs.push_back(j * count);
  }
  return b;
}

struct PerPeer {
  std::vector<MPI_Count> counts, displs;
  std::vector<const Datatype*> types;
};
inline PerPeer per_peer(const Communicator* c, CountArray counts, DisplArray displs, const Datatype* type) {
  PerPeer p;
  for (int j = 0; j < c->remote_size; ++j) {
    p.counts.push_back(counts[j]);
    p.displs.push_back(displs[j] * type->extent);
    p.types.push_back(type);
  }
  return p;
}
inline PerPeer per_peer(const Communicator* c, MPI_Count count, const Datatype* type) {
  UniformBlocks b = uniform_blocks(c, count);
  return per_peer(c, b.counts.data(), b.displs.data(), type);
}

}  // namespace ferry::coll
