// Alltoall by pairwise exchange.
//
// Chosen for all but tiny blocks: p-1 steps, each moving one block to one
// peer and one from another, so every block travels once, directly, and a
// rank never has more than one message in each direction in flight (no
// incast at any rank). Any p works (coll/alltoall/pairwise.h).
//
// Cost = (p-1) * (alpha + n/p * beta), n the bytes one rank sends.
//
// Where this host's ranks outnumber its cores, on communicators of at
// most kOneRoundMostRanks ranks, blocks of kOneRoundFrom or more go in one
// round instead: every exchange posted at once, each finishing as its
// partner gets a core, where a step waits for its one partner to be
// scheduled while the others that could move data sit idle. Cost: the
// same messages, up to p-1 in flight each way (the bound keeps that
// small). Its sends are not marked as halves of exchanges (schedule.cc
// marks a round of one send and one receive with the same peer), so shm
// offers them for a single copy only where a one-way send would be. This
// is a shape of the schedule, not an algorithm of the selection table:
// ranks may choose differently (hosts with and without spare cores)
// because every call has its own collective tag and each ordered pair
// exchanges one message per call (or its pieces, posted in the same order
// either way). 4 ranks on 2 cores, us, alternating runs, one round / steps
// (docs/performance.md, "Waits that poll through a peer's copy, alltoall
// at once where ranks share cores"): 256 KiB 287-343 / 318-411, 4 MiB
// 5674-9891 / 10070-13039; 8 ranks 4 MiB 39122-45359 / 52469-57266; 3
// ranks alike within the spread; 4 ranks of 32-128 KiB within it too.
#include "coll/alltoall/algorithms.h"
#include "coll/alltoall/pairwise.h"

#include "base/process.h"
#include "coll/packed_bytes.h"
#include "coll/typed_buffer.h"

namespace ferry::coll {

namespace {
constexpr size_t kOneRoundFrom = 32 * 1024;
constexpr int kOneRoundMostRanks = 8;

bool exchanges_in_one_round(int ranks, size_t block_bytes) {
  const process::Facts& f = process::facts();
  return f.host_ranks > f.host_cores && ranks <= kOneRoundMostRanks && block_bytes >= kOneRoundFrom;
}
}  // namespace

void alltoall_pairwise(Schedule& s, const void* sendbuf, MPI_Count sendcount, const Datatype* sendtype, void* recvbuf,
                       MPI_Count recvcount, const Datatype* recvtype) {
  const int p = s.size();
  const int rank = s.rank();
  auto recv_block = [&](int j) { return element(recvbuf, static_cast<size_t>(j) * recvcount, recvtype); };

  // Phase 1: the block to itself. With MPI_IN_PLACE it is already there,
  // but every other block would be overwritten before it is sent: send them
  // from a packed copy instead.
  const void* out = sendbuf;
  MPI_Count out_count = sendcount;
  const Datatype* out_type = sendtype;
  if (sendbuf == MPI_IN_PLACE) {
    const size_t block_bytes = recvtype->bytes(recvcount);
    char* copy = static_cast<char*>(s.scratch(block_bytes * p));
    s.copy(recvbuf, p * recvcount, recvtype, copy, static_cast<MPI_Count>(block_bytes * p), packed_bytes());
    out = copy;
    out_count = static_cast<MPI_Count>(block_bytes);
    out_type = packed_bytes();
  } else {
    s.copy(element(sendbuf, static_cast<size_t>(rank) * sendcount, sendtype), sendcount, sendtype,
           recv_block(rank), recvcount, recvtype);
  }
  s.end_round();

  // Phase 2: p-1 exchanges, in steps or in one round.
  const bool one_round = exchanges_in_one_round(p, recvtype->bytes(recvcount));
  for (int i = 1; i < p; ++i) {
    PairwiseStep step = pairwise_step(rank, p, i);
    s.recv(recv_block(step.from), recvcount, recvtype, step.from);
    s.send(element(out, static_cast<size_t>(step.to) * out_count, out_type), out_count, out_type, step.to);
    if (!one_round) s.end_round();
  }
  if (one_round) s.end_round();
}

}  // namespace ferry::coll
