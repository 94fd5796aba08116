// Barrier by dissemination (Hensgen, Finkel, Manber 1988).
//
// Chosen for every communicator size: ceil(log2 p) rounds, no root and no
// power-of-two restriction. In round k each rank signals rank + 2^k and waits
// for rank - 2^k; after the last round every rank has heard, directly or
// through others, from every other rank.
//
// Cost = ceil(log2 p) * alpha (zero-byte messages).
#include "coll/barrier/dissemination.h"

#include "core/pt2pt.h"

namespace ferry::coll {

Err barrier_dissemination(Communicator* c) {
  const int p = c->size;
  const Datatype* bytes = find_datatype(MPI_BYTE);
  for (int distance = 1, round = 0; distance < p; distance *= 2, ++round) {
    int to = (c->rank + distance) % p;
    int from = (c->rank - distance + p) % p;
    Request* r = nullptr;
    // Phase: post the receive first, so the signal from `from` finds it.
    if (Err e = pt2pt::irecv(nullptr, 0, bytes, from, round, c, &r, pt2pt::Context::kCollective)) return e;
    MPI_Request handle = r->handle;
    if (Err e = pt2pt::send(pt2pt::Message{nullptr, 0, bytes}, to, round, c, Request::Mode::kStandard,
                            pt2pt::Context::kCollective))
      return e;
    // Round k+1 may only start once `from` has reached round k.
    if (int code = pt2pt::wait(&handle, MPI_STATUS_IGNORE); code != MPI_SUCCESS)
      return Err(error_code::class_of(code), error_code::text(code));
  }
  return {};
}

}  // namespace ferry::coll
