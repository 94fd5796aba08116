// Barrier by dissemination (Hensgen, Finkel, Manber 1988).
//
// Chosen for every communicator size: ceil(log2 p) rounds, no root and no
// power-of-two restriction. In round k each rank signals rank + 2^k and waits
// for rank - 2^k; after the last round every rank has heard, directly or
// through others, from every other rank.
//
// Cost = ceil(log2 p) * alpha (zero-byte messages).
#include "coll/barrier/algorithms.h"
#include "coll/packed_bytes.h"
#include "p2p/pt2pt.h"

namespace ferry::coll {

void barrier_dissemination(Schedule& s) {
  const Communicator& c = *s.comm();
  const int p = c.size;
  for (int distance = 1; distance < p; distance *= 2) {
    // Round k: signal rank + 2^k, hear from rank - 2^k. The next round may
    // only start once `from` has reached this one, which the schedule's
    // end-of-round wait on the receive guarantees. The distances 1, 2, 4...
    // are distinct modulo p, so no two rounds talk to the same pair.
    s.recv(nullptr, 0, packed_bytes(), (c.rank - distance + p) % p);
    s.send(nullptr, 0, packed_bytes(), (c.rank + distance) % p);
    s.end_round();
  }
}

Err barrier_dissemination_now(Communicator* c) {
  const int p = c->size;
  // One tag for the whole barrier, taken in call order like a schedule's.
  const int tag = c->next_collective_tag();
  for (int distance = 1; distance < p; distance *= 2) {
    int code = MPI_SUCCESS;
    if (Err e = pt2pt::sendrecv(pt2pt::Message{nullptr, 0, packed_bytes()}, (c->rank + distance) % p, tag, nullptr,
                                0, packed_bytes(), (c->rank - distance + p) % p, tag, c, MPI_STATUS_IGNORE, &code,
                                pt2pt::Context::kCollective))
      return e;
    if (code != MPI_SUCCESS) return Err(error_code::class_of(code), error_code::text(code));
  }
  return {};
}

}  // namespace ferry::coll
