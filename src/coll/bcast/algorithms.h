// Broadcast algorithms (MPI_Bcast); each builds its rounds into a Schedule.
// The choice between them is made in coll/select.cc.
#pragma once

#include <cstddef>

#include "coll/schedule.h"

namespace ferry::coll {

void bcast_binomial(Schedule& s, void* buf, MPI_Count count, const Datatype* type, int root);
void bcast_scatter_ring_allgather(Schedule& s, void* buf, MPI_Count count, const Datatype* type, int root);
void bcast_pipelined_chain(Schedule& s, void* buf, MPI_Count count, const Datatype* type, int root,
                           size_t segment_bytes);
// The chain's segment for a message of `bytes`: about 16 segments, so that
// the p - 2 rounds of filling the chain stay small against the message, at
// most 1 MiB, at least the pipelines' segment (FERRY_COLL_SEGMENT_SIZE).
size_t bcast_chain_segment(size_t bytes);

}  // namespace ferry::coll
