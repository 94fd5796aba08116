// MPI_Comm_idup (MPI-3.1 §6.4.2): the context-id agreement of a dup, run by
// the progress engine instead of the caller.
//
// Each attempt is a nonblocking allreduce of the mask (coll::iallreduce);
// when it completes, the progress engine reads the result and either
// finishes the new communicator or starts the next attempt (another
// agreement had the mask somewhere; core/context_id.h). The new handle is
// returned at once; its attributes are copied at the call, as MPICH does.
//
// Tags: how many attempts an idup needs, and when each starts, differ from
// process to process relative to the other collectives on the parent, so
// the attempts must not draw tags from the parent's sequence as they go.
// The call reserves one tag (it is a collective call, made in the same order
// everywhere) and every attempt runs under it; attempts follow each other
// at every process, so non-overtaking keeps them apart.
#include <algorithm>
#include <iterator>
#include <list>

#include "coll/collectives.h"
#include "common/debug.h"
#include "core/attribute.h"
#include "core/communicator.h"
#include "core/context_id.h"
#include "core/group.h"
#include "core/op.h"
#include "core/progress.h"
#include "core/pt2pt.h"

namespace ferry::communicators {
namespace {

struct PendingIdup {
  // The parent as the attempts see it: its members, its collective
  // context, and the tag reserved at the call.
  Communicator via;
  Communicator* child = nullptr;
  Request* request = nullptr;  // the user's
  Request* round = nullptr;    // the attempt's allreduce, while it runs
  context_ids::Allocator::Attempt attempt;
  uint32_t contribution[context_ids::kMessageWords] = {};
  uint32_t result[context_ids::kMessageWords] = {};
};

// Touched only with the engine lock held.
std::list<PendingIdup> pending;

Err start_attempt(PendingIdup& p) {
  allocator().begin(p.attempt, p.contribution);
  if (p.via.size == 1) {
    std::copy(std::begin(p.contribution), std::end(p.contribution), p.result);
    return {};
  }
  return coll::iallreduce(p.contribution, p.result, context_ids::kMessageWords, find_datatype(MPI_UINT32_T),
                          find_op(MPI_BAND), &p.via, &p.round);
}

void finish_request(PendingIdup& p, const Err& e) {
  if (!e.ok()) {
    p.request->error = error_code::make(e.mpi_class(), e.message());
    p.request->status.MPI_ERROR = p.request->error;
  }
  complete(p.request);
}

// Moves one idup forward; true once it has finished (either way).
bool advance(PendingIdup& p) {
  if (p.round != nullptr) {
    if (!p.round->complete) return false;
    int code = p.round->error;
    requests::release(p.round);
    p.round = nullptr;
    if (code != MPI_SUCCESS) {
      allocator().abandon(p.attempt);
      finish_request(p, Err(error_code::class_of(code), error_code::text(code)));
      return true;
    }
  }
  uint32_t slot = 0;
  switch (allocator().finish(p.attempt, p.result, &slot)) {
    case context_ids::Allocator::Outcome::kDone:
      p.child->context = context_ids::p2p_context(slot);
      FERRY_DEBUG(kComm, "MPI_Comm_idup of %d ranks: slot %u", p.via.size, slot);
      finish_request(p, Err());
      return true;
    case context_ids::Allocator::Outcome::kExhausted:
      finish_request(p, fail(MPI_ERR_OTHER, "no context id is free at every process"));
      return true;
    case context_ids::Allocator::Outcome::kRetry:
      break;
  }
  if (Err e = start_attempt(p)) {
    allocator().abandon(p.attempt);
    finish_request(p, e);
    return true;
  }
  return false;  // the next attempt is under way (or, alone, runs next pass)
}

int progress_idups() {
  int events = 0;
  for (auto it = pending.begin(); it != pending.end();) {
    if (advance(*it)) {
      it = pending.erase(it);
      ++events;
    } else {
      ++it;
    }
  }
  return events;
}

}  // namespace

Err idup(Communicator* parent, Communicator** out, Request** request) {
  *out = nullptr;
  *request = nullptr;
  sweep();
  groups::retain(parent->group);
  Communicator* c = make(parent, parent->group, context_ids::kNoSlot);
  c->hints = parent->hints;
  if (Err e = attributes::copy_all(attributes::Kind::kComm, parent, parent->handle, c, c->handle)) {
    (void)attributes::delete_all(attributes::Kind::kComm, c, c->handle);
    discard(c);
    return e;
  }

  progress::Lock lock;
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = parent;
  r->active = true;
  r->status = pt2pt::empty_status();

  PendingIdup& p = pending.emplace_back();
  p.child = c;
  p.request = r;
  p.via.context = parent->context;
  p.via.rank = parent->rank;
  p.via.size = parent->size;
  p.via.world_ranks = parent->world_ranks;
  p.via.handle = parent->handle;
  p.via.fixed_collective_tag = parent->next_collective_tag();
  p.attempt.priority = context_ids::priority(context_ids::slot_of_context(parent->context),
                                             context_ids::Origin::kIdup,
                                             static_cast<uint32_t>(p.via.fixed_collective_tag));
  if (Err e = start_attempt(p)) {
    allocator().abandon(p.attempt);
    pending.pop_back();
    requests::release(r);
    (void)attributes::delete_all(attributes::Kind::kComm, c, c->handle);
    discard(c);
    return e;
  }
  progress::set_extra_work(progress_idups);
  *out = c;
  *request = r;
  return {};
}

}  // namespace ferry::communicators
