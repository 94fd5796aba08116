// Barrier by dissemination (Hensgen, Finkel, Manber 1988).
//
// Chosen for every communicator size: ceil(log2 p) rounds, no root and no
// power-of-two restriction. In round k each rank signals rank + 2^k and waits
// for rank - 2^k; after the last round every rank has heard, directly or
// through others, from every other rank.
//
// Cost = ceil(log2 p) * alpha (zero-byte messages).
//
// Two forms, one set of rounds (dissemination_rounds): a schedule for
// MPI_Ibarrier, and the same rounds run at once for MPI_Barrier.
#include "coll/barrier/algorithms.h"
#include "coll/packed_bytes.h"
#include "p2p/pt2pt.h"

namespace ferry::coll {

void barrier_dissemination(Schedule& s) {
  // The next round may only start once `from` has reached this one, which
  // the schedule's end-of-round wait on the receive guarantees. The
  // distances 1, 2, 4... are distinct modulo p, so no two rounds talk to the
  // same pair.
  dissemination_rounds(s.rank(), s.size(), [&](int to, int from) {
    s.recv(nullptr, 0, packed_bytes(), from);
    s.send(nullptr, 0, packed_bytes(), to);
    s.end_round();
    return true;
  });
}

Err barrier_dissemination_now(Communicator* c) {
  // One tag for the whole barrier, taken in call order like a schedule's.
  const int tag = c->next_collective_tag();
  Err error;
  dissemination_rounds(c->rank, c->size, [&](int to, int from) {
    int code = MPI_SUCCESS;
    error = pt2pt::sendrecv(pt2pt::Message{nullptr, 0, packed_bytes()}, to, tag, nullptr, 0, packed_bytes(), from, tag,
                            c, MPI_STATUS_IGNORE, &code, pt2pt::Context::kCollective);
    if (!error && code != MPI_SUCCESS) error = Err(error_code::class_of(code), error_code::text(code));
    return !error;
  });
  return error;
}

}  // namespace ferry::coll
