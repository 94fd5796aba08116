// coll/hier's phases within one host: coll/shm's algorithms on the host's
// segment (structure.h), cut into pieces that fit a cell, so that a call of
// any size runs through it (each piece one shared-memory operation, the
// same pieces on every rank of the host).
//
// Cost per piece: one copy into a cell and one out of it per reader, one
// flag store per writer and a flag wait per reader (shm/algorithms.h).
#pragma once

#include <cstddef>

#include "base/datatype.h"
#include "base/error.h"
#include "base/op.h"
#include "coll/shm/segment.h"

namespace ferry::coll::hier {

// `bytes` bytes at `data` from local rank `root` to the others.
Err local_bcast_bytes(shm::CommSegment& seg, void* data, size_t bytes, int root);

// A bcast of any datatype (packed first where it is not contiguous, so
// that every rank cuts the same bytes, whatever datatype it passed).
Err local_bcast(shm::CommSegment& seg, void* buf, MPI_Count count, const Datatype* type, int root);

// Reduce to local rank `root`, `type` contiguous: pieces of whole
// elements. `sendbuf` may be MPI_IN_PLACE at the root (input in recvbuf);
// recvbuf is only written at the root.
Err local_reduce(shm::CommSegment& seg, const void* sendbuf, void* recvbuf, MPI_Count count, const Datatype* type,
                 const Op* op, int root);

// Gather of every local rank's `bytes` bytes at `mine` to local rank
// `root`'s `all` (local rank order), in pieces.
Err local_gather_bytes(shm::CommSegment& seg, const void* mine, size_t bytes, void* all, int root);

}  // namespace ferry::coll::hier
