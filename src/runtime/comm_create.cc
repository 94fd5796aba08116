// Communicator construction (MPI-3.1 §6.4.2): dup, split, split_type, create,
// create_group. Each agrees on a context id (base/context_id.h) with one
// small allreduce over the processes that call it, then builds the new
// communicator locally.
#include <algorithm>
#include <unordered_set>
#include <vector>

#include "coll/collectives.h"
#include "common/debug.h"
#include "base/attribute.h"
#include "base/comm_hints.h"
#include "base/communicator.h"
#include "runtime/comm_create.h"
#include "base/context_id.h"
#include "base/group.h"
#include "runtime/group_allreduce.h"
#include "base/op.h"
#include "p2p/revoke.h"
#include "progress/progress.h"
#include "runtime/runtime.h"

namespace ferry::communicators {
namespace {

uint32_t slot_of(const Communicator* c) { return context_ids::slot_of_context(c->context); }

// A process alone needs no allreduce, but an attempt refused the mask must
// still let the agreement that has it (an MPI_Comm_idup, advanced by the
// progress engine) finish, or it would wait for itself.
Err drive_progress() {
  progress::Lock lock;
  progress::poll();
  return {};
}

// Agrees on a slot with the other processes of `parent` (all of them call
// this, in the same collective order). `need`: this process gets a
// communicator and so a slot; the others only take part.
Err agree_over(const char* what, Communicator* parent, bool need, uint32_t* slot) {
  // Communicators freed since the last agreement give their ids back first.
  sweep();
  int rounds = 0;
  Err e = allocator().agree(context_ids::priority(slot_of(parent)), need,
                            [parent, &rounds](uint32_t words[], int count) -> Err {
                              ++rounds;
                              if (parent->size == 1) return drive_progress();
                              std::vector<uint32_t> mine(words, words + count);
                              return coll::allreduce(mine.data(), words, count, find_datatype(MPI_UINT32_T),
                                                     find_op(MPI_BAND), parent);
                            },
                            slot);
  if (e.ok() && need)
    FERRY_DEBUG(kComm, "%s of %d ranks: slot %u (contexts %u-%u) after %d allreduce%s", what, parent->size, *slot,
                context_ids::p2p_context(*slot), context_ids::p2p_context(*slot) + context_ids::kContextsPerSlot - 1, rounds, rounds == 1 ? "" : "s");
  return e;
}

int my_world_rank() { return world().rank; }

// A new intracommunicator on `slot`, final: a revoke notice that came before
// it was made applies to it now (p2p/revoke.h).
Communicator* build(Communicator* parent, Group* group, uint32_t slot) {
  Communicator* c = make(parent, group, slot);
  p2p::revoke::settle(c);
  return c;
}

// Checks that every member of `group` belongs to `parent`.
Err check_subgroup(const Communicator& parent, const Group& group) {
  std::unordered_set<int> in_parent;
  in_parent.reserve(static_cast<size_t>(parent.size));
  for (int r = 0; r < parent.size; ++r) in_parent.insert(parent.world_rank(r));
  for (int i = 0; i < group.size(); ++i)
    if (!in_parent.count(group.members[static_cast<size_t>(i)]))
      return fail(MPI_ERR_GROUP, "group member %d (world rank %d) is not in the communicator", i,
                  group.members[static_cast<size_t>(i)]);
  return {};
}

}  // namespace

Err dup(Communicator* parent, const Info* hints, Communicator** out) {
  *out = nullptr;
  if (parent->inter) {
    Err e = dup_inter(parent, out);
    if (e.ok() && hints != nullptr) comm_hints::assign(**out, comm_hints::filter(*hints));
    return e;
  }
  uint32_t slot = 0;
  if (Err e = agree_over("MPI_Comm_dup", parent, true, &slot)) return e;
  groups::retain(parent->group);
  Communicator* c = build(parent, parent->group, slot);
  comm_hints::assign(*c, hints != nullptr ? comm_hints::filter(*hints) : parent->hints);
  c->topology = parent->topology;  // MPI-3.1 §7.4: a duplicate keeps the topology
  // MPI-3.1 §6.7.2: the attributes go through their copy callbacks; if one
  // fails, so does the dup (and what was copied is deleted again).
  if (Err e = attributes::copy_all(attributes::Kind::kComm, parent, parent->handle, c, c->handle)) {
    (void)attributes::delete_all(attributes::Kind::kComm, c, c->handle);
    discard(c);
    return e;
  }
  *out = c;
  return {};
}

Err split(Communicator* parent, int color, int key, Communicator** out) {
  *out = nullptr;
  if (parent->inter) return split_inter(parent, color, key, out);
  // Everybody's (color, key), in parent rank order.
  int mine[2] = {color, key};
  std::vector<int> all(2 * static_cast<size_t>(parent->size));
  const Datatype* ints = find_datatype(MPI_INT);
  if (Err e = coll::allgather(mine, 2, ints, all.data(), 2, ints, parent)) return e;

  // One slot for all the new communicators: they are disjoint, so they can
  // share it, and one allreduce over the parent decides it (MPICH does the same).
  const bool member = color != MPI_UNDEFINED;
  uint32_t slot = 0;
  if (Err e = agree_over("MPI_Comm_split", parent, member, &slot)) return e;
  if (!member) return {};

  // MPI-3.1 §6.4.2: ranks ordered by key, ties broken by parent rank.
  struct Candidate {
    int key;
    int parent_rank;
  };
  std::vector<Candidate> same_color;
  for (int r = 0; r < parent->size; ++r)
    if (all[2 * static_cast<size_t>(r)] == color)
      same_color.push_back(Candidate{all[2 * static_cast<size_t>(r) + 1], r});
  std::stable_sort(same_color.begin(), same_color.end(),
                   [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
  groups::Members members;
  members.reserve(same_color.size());
  for (const Candidate& m : same_color) members.push_back(parent->world_rank(m.parent_rank));
  *out = build(parent, groups::make(std::move(members), my_world_rank()), slot);
  return {};
}

Err split_shared(Communicator* parent, int key, Communicator** out) {
  // The colour of a host: the lowest world rank on it, which every rank of
  // the host reads from the same PMIx locality (PMIX_LOCAL_PEERS).
  const std::vector<int>& peers = runtime::job().local_peers;
  int color = peers.empty() ? my_world_rank() : *std::min_element(peers.begin(), peers.end());
  return split(parent, color, key, out);
}

Err create(Communicator* parent, Group* group, Communicator** out) {
  *out = nullptr;
  if (parent->inter) return create_inter(parent, group, out);
  if (Err e = check_subgroup(*parent, *group)) return e;
  // MPI-3.1 §6.4.2: processes may pass different (disjoint) groups, or
  // MPI_GROUP_EMPTY; one agreement over the parent serves them all.
  const bool member = group->rank != MPI_UNDEFINED;
  uint32_t slot = 0;
  if (Err e = agree_over("MPI_Comm_create", parent, member, &slot)) return e;
  if (!member) return {};
  groups::retain(group);
  *out = build(parent, group, slot);
  return {};
}

Err create_group(Communicator* parent, Group* group, int tag, Communicator** out) {
  *out = nullptr;
  if (Err e = check_subgroup(*parent, *group)) return e;
  // Only the members call it; a process outside the group gets
  // MPI_COMM_NULL without communicating (as MPICH does).
  if (group->rank == MPI_UNDEFINED) return {};
  sweep();
  uint32_t slot = 0;
  if (Err e = allocator().agree(context_ids::priority(slot_of(parent), context_ids::Origin::kCreateGroup,
                                                        static_cast<uint32_t>(tag)),
                                true,
                                [&](uint32_t words[], int count) {
                                  if (group->size() == 1) return drive_progress();
                                  return group_allreduce_band(parent, *group, tag, words, count);
                                },
                                &slot))
    return e;
  FERRY_DEBUG(kComm, "MPI_Comm_create_group of %d ranks, tag %d: slot %u", group->size(), tag, slot);
  groups::retain(group);
  *out = build(parent, group, slot);
  return {};
}

}  // namespace ferry::communicators
