// FERRY_PROFILE's late-partner wait: the part of a blocking call's time that a rank spent waiting
// for another rank to get there (the imbalance), as opposed to moving data once both were there
// (README "Profiling a job", "Waiting for late partners"). Measured by the profile's wrappers
// (bindings/gen_qmpi.py `profile`), never when FERRY_PROFILE is unset:
//
// - Blocking collectives (MPI_Bcast ... MPI_Neighbor_alltoallw, their _c forms), on an intra- or an
//   intercommunicator: the wrapper first runs a barrier on the communicator (synchronize below)
//   and counts its time as the wait: from this rank's entry until every rank had entered (both
//   groups of an intercommunicator: Ferry's intercommunicator barrier lets nobody go before then,
//   coll/inter/barrier.cc, which is more than MPI-4.0 §6.3 asks), plus one barrier's latency. The
//   collective itself then starts with everyone there. That barrier is the whole cost (every call,
//   on every rank alike, as the barrier must be); its choice is not counted in the report's
//   algorithm table. MPI_Barrier is all wait, MPI_Probe and MPI_Mprobe too (they return when the
//   message arrives).
// - Nonblocking collectives (MPI_Ibcast ... MPI_Ineighbor_alltoallw, _c forms) and persistent ones
//   (each MPI_Start, MPI_Startall), on a sample of calls (a companion costs about twice the call's
//   own instructions): every one of a communicator's first kWarmup (32) nonblocking collectives,
//   then one in kSampleOneIn (512) on average, at gaps drawn from a hash of the count that every
//   rank keeps alike (the same for each persistent request's starts); companions.h. A sampled
//   call's wrapper starts a
//   companion barrier that completes once every rank has started the collective. MPI_Wait (a
//   timed call) on such a request: the time until its companion or the collective itself
//   completes, whichever first (so never longer than the call's own wait); MPI_Ibarrier's (every
//   one measured) is its whole wait. MPI_Waitall waits for that of each such request too,
//   MPI_Waitany and MPI_Waitsome end at the first. MPI_Test and its kin never wait, so they count
//   no wait. A Wait-family call on a collective not sampled (or one the companion table had no
//   room for) is not measured: it adds to neither the wait nor the calls measured (`waits`). One
//   on a sampled collective stands for the kSampleOneIn calls it was picked from (after the
//   warmup): its wait and its call count that many times in wait_ticks and waits (note_wait's
//   weight; an array's is the product of its collectives'). So the report's estimate from wait_ticks and
//   waits (common/profile_layout.h) is of the weighted mean of the measured calls, an estimate of
//   the function's wait as the sampled timed calls' ticks are of its time (counters.h Sampling),
//   also where one function waits on both receives (measured on every timed call) and collectives.
// - MPI_Recv (a timed call: counters.h Sampling): the receive notes when a message was matched to
//   it (its first packet arrived: begin_receive/end_receive); the wait is the time from the call's
//   start until the match, about 0 when the message was there first.
// - MPI_Wait (a timed call) on a receive not yet matched: the time until it is matched.
// - MPI_Waitall (a timed call): the time until every receive of its array is matched (its sends
//   and other requests are not waited for: a receive's match is the partner's doing) and every
//   measured collective's partners had started it.
// - MPI_Waitany, MPI_Waitsome (timed calls): the time until one of its receives is matched, one
//   measured collective's partners had all started it, or any request is complete, when none of
//   these held at the call's start (one request done ends the call).
// - MPI_Sendrecv and MPI_Sendrecv_replace as MPI_Recv: from the call's start until its receive's
//   match (its own send comes first, so a long send's time is in it).
#pragma once

#include <cstdint>

#include "mpi.h"

namespace ferry {
struct Request;
}

namespace ferry::profile::late_partners {

// What the wait_for_ functions measure: `ticks` waited, standing for `weight` calls (note_wait):
// 1, or for a sampled collective the calls it stands for (companions::weight); 0 when the call is
// not measured (a collective not sampled among its requests), whose wrapper then notes nothing.
struct Wait {
  uint64_t ticks = 0;
  uint64_t weight = 1;
};

// Ticks this rank waited until a message was matched to receive request `request`, or until every
// partner had started collective request `request` (0 when it is neither, or that held already;
// weight 0 for a collective not sampled).
Wait wait_for_match(MPI_Request request);
// The latter, for active collective request `r`: until its companion or itself completes
// (weight 0 when the profile does not measure it).
Wait wait_for_partners(Request* r);

// MPI_Waitall's wait: ticks until each receive among requests `handles[0..n)` was matched (0 when
// all were, or the array is one that MPI_Waitall rejects; weight 0 with an active collective not
// sampled among them, else the product of its collectives' weights).
Wait wait_for_all_matched(int n, const MPI_Request* handles);
// MPI_Waitany's and MPI_Waitsome's: ticks until one of the receives was matched or one request was
// complete (0 when one was at once; the weight as MPI_Waitall's).
Wait wait_for_any_matched(int n, const MPI_Request* handles);

// Runs a barrier on `comm` before a blocking collective: true when it ran (false for a handle that
// is not a communicator, which the collective itself then reports). Its errors are left for the
// collective to meet and report.
bool synchronize(MPI_Comm comm);

// Around a timed MPI_Recv: begin_receive asks the blocking receive to note when its message was
// matched (pt2pt::recv_matched_hook); end_receive, after it, returns the ticks from `start` until
// that match (0 when the receive ended without one). The receive itself runs whole, so its errors
// name MPI_Recv.
void begin_receive();
uint64_t end_receive(uint64_t start);

}  // namespace ferry::profile::late_partners
