// The three ways a collective call runs (Launch, collectives.h): blocking,
// nonblocking, persistent. Every collective entry point (rooted.cc,
// all_ranks.cc, reductions.cc, neighborhood.cc) builds its schedule through
// one of these, so the forms differ here only: blocking builds and runs to
// the end; nonblocking builds and hands the schedule to the progress engine
// (MPI-4.0 §6.12); persistent builds once and each MPI_Start runs it again
// (§6.13, persistent.h). Where GPU buffers were staged through host copies
// (device_buffers.h), the copies in and out are the schedule's first and
// last rounds.
//
// Every rank builds exactly one Schedule per call, even when it has nothing
// to move: the Schedule takes the communicator's next collective tag, and
// the ranks' tags must stay in step.
#pragma once

#include <memory>
#include <utility>

#include "base/op.h"
#include "coll/collectives.h"
#include "coll/device_buffers.h"
#include "coll/persistent.h"
#include "coll/schedule.h"
#include "coll/shm/started.h"

namespace ferry::coll {

// The blocking form: build, then run to the end.
template <typename Build>
Err run_blocking(Communicator* c, Build&& build) {
  Schedule s(c);
  build(s);
  return s.run();
}

// Builds the schedule; where the call staged GPU buffers through host
// copies (coll/device_buffers.h, deferred), the copies in are its first
// round and the copies out its last, so that each start of a persistent
// one copies again, and the schedule keeps the host copies alive.
template <typename Build>
void build_with_staging(Schedule& s, Build&& build) {
  std::shared_ptr<StagedBuffers> staged = take_deferred_staging();
  if (staged) {
    s.local_checked([staged] { return staged->copy_in(); });
    s.end_round();
  }
  build(s);
  if (staged) {
    s.local_checked([staged] { return staged->copy_out(); });
    s.end_round();
  }
}

// The nonblocking form: build, then start; the progress engine finishes it.
template <typename Build>
Err run_nonblocking(Communicator* c, Request** request, Build&& build) {
  auto s = std::make_unique<Schedule>(c);
  build_with_staging(*s, build);
  Err e;
  *request = start_nonblocking(std::move(s), &e);
  return e;
}

// The persistent form: build once; each MPI_Start runs it (coll/persistent.h).
template <typename Build>
Err run_persistent(Communicator* c, Request** request, Build&& build) {
  auto s = std::make_unique<Schedule>(c);
  build_with_staging(*s, build);
  *request = make_persistent(std::move(s));
  return {};
}

// A nonblocking call that the selection gave to shared memory (coll/shm):
// started on the segment now (shm/started.h).
inline Err start_shared(Communicator* c, Launch how, shm::CommSegment& seg, const shm::Call& call) {
  *how.request = shm::start_nonblocking(c, seg, call);
  return {};
}

// Runs the schedule that `build` makes as `how` says.
template <typename Build>
Err run(Communicator* c, Launch how, Build&& build) {
  switch (how.form) {
    case Launch::Form::kNonblocking: return run_nonblocking(c, how.request, build);
    case Launch::Form::kPersistent: return run_persistent(c, how.request, build);
    default: return run_blocking(c, build);
  }
}

// Runs a reduction's schedule as `how` says, keeping its operation alive
// for as long as a nonblocking or persistent request may apply it.
template <typename Build>
Err run_reduction(Communicator* c, Launch how, const Op* op, Build&& build) {
  if (how.form == Launch::Form::kBlocking) return run_blocking(c, build);
  // MPI-4.0 §6.13: the operation stays in use until the request is freed.
  if (how.form == Launch::Form::kPersistent)
    return run_persistent(c, how.request, [&](Schedule& s) {
      s.hold(op);
      build(s);
    });
  Request** request = how.request;
  // MPI-3.1 §5.9.5: freeing the operation does not affect a nonblocking
  // call that uses it. (Released by the last round: a schedule that fails
  // midway keeps its reference.)
  ops::retain(*op);
  return run_nonblocking(c, request, [&](Schedule& s) {
    build(s);
    s.local([op] { ops::release(*op); });
    s.end_round();
  });
}

}  // namespace ferry::coll
