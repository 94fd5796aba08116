// FERRY_PROFILE's companion barriers: how the profile tells when every partner of a nonblocking or
// persistent collective had started it, so that a Wait on its request can count the late-partner
// wait (late_partners.h, README "Profiling a job"). Never used when FERRY_PROFILE is unset.
//
// After a sample of the successful nonblocking collectives (MPI_Ibcast ... MPI_Ineighbor_alltoallw,
// _c forms) and of the MPI_Starts of a persistent collective, the profile starts a
// nonblocking barrier on the same communicator, its companion: it completes once every rank (of both groups,
// on an intercommunicator: coll/inter/barrier.cc) has started its own, that is has started the
// collective. Every rank starts it at the same call, as it must (all ranks of a communicator are
// profiled, as mpirun makes them). MPI_Ibarrier needs none: its own completion says the same.
//
// The companion never touches the program's collectives: it runs on a shadow of the communicator
// (communicators::shadow, as MPI_Comm_idup's agreement does) with a fixed tag of its own, above the
// 30-bit tags the communicator numbers its collectives with, so it takes no tag of the
// communicator's sequence; it is a dissemination barrier's schedule (the intercommunicator's
// barrier on one), built without the selection, so it takes no shared-memory or hierarchical path
// and is not counted in the report's choices of algorithm. Its requests keep the communicator
// (and an intercommunicator's local group) alive after MPI_Comm_free until it completes, so that
// the communicator's context id cannot be agreed on again for another one whose companions would
// take its messages (requests::any_of). A nonblocking collective's companion
// takes its tag from the communicator's count of nonblocking collectives (every rank agrees on
// it); a persistent collective may be started in any order on different ranks (MPI-4.0 §6.13),
// so all of a communicator's persistent companions share one tag: they are all the same barrier,
// and the k-th one started on a rank matches the k-th on every other (non-overtaking), whatever
// collective each rank started it for; a program that starts them in different orders gets waits
// of another start's partners, never a hang or a mismatch.
//
// Sampling: a companion costs about twice the instructions of a small collective itself (an 8-byte
// MPI_Iallreduce + MPI_Wait at 2 ranks: ~3,000 instructions per rank, ~6,000 more with a
// companion), so one on every call would triple it. Every rank must start the same companions,
// without a word between them: the sample is the communicator's count of nonblocking collectives
// (Communicator::profiled_nonblocking, alike on every rank since they start them in the same order)
// and, for a persistent collective, which MPI-4.0 §6.13 lets ranks start in different orders, its
// request's count of starts (Request::profiled_starts, alike since each rank starts it equally
// often). Calls 0 .. kWarmup-1 are all measured (a short program, or its first phase, is measured
// whole); after that, the next call measured is 1 to 2 kSampleOneIn - 1 calls after the last, the
// gap a hash of the last one's count salted with the context (not count % N, so that a program
// late every N-th call cannot line up with it): one in kSampleOneIn on average. The counting needs
// the communicator or request, which the implementation has already found: a nonblocking
// collective is counted by the implementation itself (api::launch calls nonblocking_started,
// when the profile is attached), a persistent start by the MPI_Start wrapper on the request it
// looks up anyway (for a persistent send's message); so a call pays a count and a compare, and
// a sampled one, its companion, whose time a timed call leaves out (own_ticks), so that the
// call's time is its own. A Wait
// on a call not sampled measures nothing; one on a sampled call counts its wait for the
// kSampleOneIn calls it stands for (late_partners.h), and the report scales the measured calls'
// waits to all as it does timed calls' times.
//
// The profile keeps collective request -> companion in a fixed table of kMaxCompanions (allocating
// only the companion: its schedule, its communicator copy, and a task if it outlives its
// collective). When it is full the companion still starts (every rank must) but is detached at
// once, and that call is not measured. A table entry is retired once its request is (completed by a
// Wait or Test; freed, which MPI-4.0 §6.12 makes erroneous but Ferry allows; a persistent request
// once inactive), found so at the next call (sampled or not, while the table holds any) and at
// MPI_Finalize. MPI_Cancel leaves a
// collective, and so its entry, alone. A
// companion still pending then is handed to the progress engine, which frees it when it completes:
// the program never sees it and it never makes a program's call wait. MPI_Finalize's wrapper waits
// (at most kFinalizeWaitMs) for the companions still pending, which complete as every rank gets
// there, then frees them.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/communicator.h"
#include "base/request.h"
#include "mpi.h"

namespace ferry::profile::companions {

constexpr int kMaxCompanions = 256;
constexpr uint32_t kWarmup = 32;
constexpr uint32_t kSampleOneIn = 512;
constexpr int kFinalizeWaitMs = 2000;

namespace detail {
extern bool watching;
extern int entries;
extern uint64_t spent_ticks;
void nonblocking_sampled(Communicator* c, Request* r, uint32_t count);
void barrier_started(Request* r);
void started_persistent(MPI_Request handle, Request* r, uint32_t count);
inline bool table_empty() { return std::atomic_ref<int>(entries).load(std::memory_order_relaxed) == 0; }
}  // namespace detail

// Called by the profile tool's attachment (counters.h attach): from then on the implementation
// tells the profile of every nonblocking collective it starts.
void watch();
// Whether it does (a flag's test: all that the implementation pays while the profile is not
// attached).
inline bool watching() { return detail::watching; }

// After nonblocking collective `r` started successfully on `c` (`barrier`: MPI_Ibarrier, every one
// measured, its own companion), from inside the implementation (api::launch), when watching():
// counts it on `c` and starts a sampled one's companion. Inline, the common case: a count, a
// compare, and a look at whether the table holds anything to retire.
inline __attribute__((always_inline)) void nonblocking_started(Communicator* c, Request* r, bool barrier) {
  if (c == nullptr) return;  // (a request that is nullptr is the out-of-line functions' to see)
  if (barrier) return detail::barrier_started(r);
  uint32_t count = c->profiled_nonblocking++;
  if (count != c->profiled_next_sample && detail::table_empty()) [[likely]] return;
  detail::nonblocking_sampled(c, r, count);
}
// The clock ticks spent so far starting companions inside the implementation's calls: a timed
// wrapper of a nonblocking collective reads it before the call and takes what it grew by off the
// call's time (own_ticks), which is then the collective's alone, while the untimed path stays a
// tail call. (Under MPI_THREAD_MULTIPLE another thread's companion may be taken off too: rare, as
// it needs a sampled call and a timed one at once, and the time is never below 0.)
inline uint64_t spent() { return std::atomic_ref<uint64_t>(detail::spent_ticks).load(std::memory_order_relaxed); }
inline uint64_t own_ticks(uint64_t elapsed, uint64_t spent_before) {
  uint64_t companions = spent() - spent_before;
  return elapsed > companions ? elapsed - companions : 0;
}

// After a successful MPI_Start (or each request of MPI_Startall) of collective request `request`
// (`r`: the request behind it, looked up once by the wrapper): counts a persistent collective's
// start, and starts its companion if it is sampled. Inline, the common case: a count, a compare,
// and a look at whether the table holds anything to retire.
inline __attribute__((always_inline)) void started_persistent(MPI_Request request, Request* r) {
  uint32_t count = r->profiled_starts++;
  if (count != r->profiled_next_sample && detail::table_empty()) [[likely]] return;
  detail::started_persistent(request, r, count);
}

// About collective request `r` (active, engine lock held): how many calls its measure stands for
// (1 in the warmup, kSampleOneIn after it; 0: the profile does not measure it, a call not sampled
// or one whose companion did not start), and
// whether every partner had started it (its companion, or the request itself, complete).
uint32_t weight(const Request* r);
bool partners_there(const Request* r);

// MPI_Finalize's start: waits for pending companions (bounded), frees them all.
void finish();

}  // namespace ferry::profile::companions
