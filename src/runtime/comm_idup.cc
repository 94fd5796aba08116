// MPI_Comm_idup (MPI-3.1 §6.4.2): the context-id agreement of a dup, run by
// the progress engine instead of the caller.
//
// Each attempt is a nonblocking allreduce of the mask (coll::iallreduce);
// when it completes, the progress engine reads the result and either
// finishes the new communicator or starts the next attempt (another
// agreement had the mask somewhere; base/context_id.h). The new handle is
// returned at once; its attributes are copied at the call, as MPICH does.
//
// Tags: how many attempts an idup needs, and when each starts, differ from
// process to process relative to the other collectives on the parent, so
// the attempts must not draw tags from the parent's sequence as they go.
// The call reserves one tag (it is a collective call, made in the same order
// everywhere) and every attempt runs under it; attempts follow each other
// at every process, so non-overtaking keeps them apart.
//
// An intercommunicator's idup first idups its hidden local intracommunicator
// (an agreement within the local group, itself a task), then agrees on the
// slot over both groups (coll::iallreduce_both_groups), with a tag reserved
// at the call on the intercommunicator and one on its local side.
#include <algorithm>
#include <iterator>
#include <memory>

#include "coll/collectives.h"
#include "common/debug.h"
#include "base/attribute.h"
#include "base/comm_hints.h"
#include "base/communicator.h"
#include "runtime/comm_create.h"
#include "base/context_id.h"
#include "base/group.h"
#include "base/op.h"
#include "progress/progress.h"
#include "progress/tasks.h"
#include "p2p/pt2pt.h"
#include "p2p/revoke.h"

namespace ferry::communicators {
namespace {

// One MPI_Comm_idup's agreement, advanced by the progress engine.
class PendingIdup final : public progress::Task {
 public:
  // The parent as the attempts see it: its members, its collective
  // context, and the tag reserved at the call.
  Communicator via;
  Communicator via_local;  // an intercommunicator's local side, as `via`
  Communicator* child = nullptr;
  Request* request = nullptr;  // the user's
  // An intercommunicator's: the idup of the child's hidden local
  // intracommunicator, which comes first.
  Request* local_idup = nullptr;
  context_ids::Allocator::Attempt attempt;

  Err start_attempt() {
    allocator().begin(attempt, contribution_);
    const Datatype* words = find_datatype(MPI_UINT32_T);
    if (via.inter)
      return coll::iallreduce_both_groups(contribution_, result_, context_ids::kMessageWords, words,
                                          find_op(MPI_BAND), &via, &round_);
    if (via.size == 1) {
      std::copy(std::begin(contribution_), std::end(contribution_), result_);
      return {};
    }
    return coll::iallreduce(contribution_, result_, context_ids::kMessageWords, words, find_op(MPI_BAND), &via,
                            &round_);
  }

  // True once the idup has finished (either way) and completed its request.
  bool advance() override {
    if (local_idup != nullptr) {
      if (!local_idup->complete) return false;
      int code = local_idup->error;
      requests::release(local_idup);
      local_idup = nullptr;
      Err e = code == MPI_SUCCESS ? start_attempt() : Err(error_code::class_of(code), error_code::text(code));
      if (e) {
        if (code == MPI_SUCCESS) allocator().abandon(attempt);
        complete(request, e);
        return true;
      }
      return false;
    }
    if (round_ != nullptr) {
      if (!round_->complete) return false;
      int code = round_->error;
      requests::release(round_);
      round_ = nullptr;
      if (code != MPI_SUCCESS) {
        allocator().abandon(attempt);
        complete(request, Err(error_code::class_of(code), error_code::text(code)));
        return true;
      }
    }
    uint32_t slot = 0;
    switch (allocator().finish(attempt, result_, &slot)) {
      case context_ids::Allocator::Outcome::kDone:
        child->context = context_ids::p2p_context(slot);
        p2p::revoke::settle(child);
        FERRY_DEBUG(kComm, "MPI_Comm_idup of %d ranks: slot %u", via.size, slot);
        complete(request);
        return true;
      case context_ids::Allocator::Outcome::kExhausted:
        complete(request, fail(MPI_ERR_OTHER, "no context id is free at every process"));
        return true;
      case context_ids::Allocator::Outcome::kRetry:
        break;
    }
    if (Err e = start_attempt()) {
      allocator().abandon(attempt);
      complete(request, e);
      return true;
    }
    return false;  // the next attempt is under way (or, alone, runs next pass)
  }

 private:
  Request* round_ = nullptr;  // the attempt's allreduce, while it runs
  uint32_t contribution_[context_ids::kMessageWords] = {};
  uint32_t result_[context_ids::kMessageWords] = {};
};

}  // namespace

Err idup(Communicator* parent, Communicator** out, Request** request, const Info* hints) {
  *out = nullptr;
  *request = nullptr;
  sweep();
  groups::retain(parent->group);
  Communicator* c = parent->inter ? make_inter(parent, parent->group, parent->remote_group->members,
                                               context_ids::kNoSlot, nullptr)
                                  : make(parent, parent->group, context_ids::kNoSlot);
  comm_hints::assign(*c, hints != nullptr ? comm_hints::filter(*hints) : parent->hints);
  c->topology = parent->topology;  // MPI-3.1 §7.4: a duplicate keeps the topology
  Err copied = attributes::copy_all(attributes::Kind::kComm, parent, parent->handle, c, c->handle);
  // An intercommunicator's hidden local side first (its own agreement).
  Request* local_idup = nullptr;
  if (copied.ok() && parent->inter) copied = idup(parent->local, &c->local, &local_idup);
  if (copied) {
    (void)attributes::delete_all(attributes::Kind::kComm, c, c->handle);
    discard(c);
    return copied;
  }

  progress::Lock lock;
  Request* r = requests::acquire();
  r->kind = Request::Kind::kCollective;
  r->comm = parent;
  r->active = true;
  r->status = pt2pt::empty_status();

  auto p = std::make_unique<PendingIdup>();
  p->child = c;
  p->request = r;
  // The tags in this order at every process (the intercommunicator's, then its local group's).
  int tag = parent->next_collective_tag();
  int local_tag = parent->inter ? parent->local->next_collective_tag() : -1;
  shadow(*parent, tag, local_tag, &p->via, &p->via_local);
  p->local_idup = local_idup;  // nullptr but for an intercommunicator
  p->attempt.priority = context_ids::priority(context_ids::slot_of_context(parent->context),
                                              context_ids::Origin::kIdup,
                                              static_cast<uint32_t>(p->via.fixed_collective_tag));
  if (!parent->inter) {
    if (Err e = p->start_attempt()) {
      allocator().abandon(p->attempt);
      requests::release(r);
      (void)attributes::delete_all(attributes::Kind::kComm, c, c->handle);
      discard(c);
      return e;
    }
  }
  progress::start(std::move(p));
  *out = c;
  *request = r;
  return {};
}

}  // namespace ferry::communicators
