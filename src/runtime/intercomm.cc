// Intercommunicators (MPI-3.1 §6.6): MPI_Intercomm_create, MPI_Intercomm_merge,
// and MPI_Comm_dup, MPI_Comm_split and MPI_Comm_create of an
// intercommunicator (MPI_Comm_idup's is in runtime/comm_idup.cc).
//
// Both groups agree on one context id, so a message carries the same context
// at both ends and point-to-point needs nothing new: the allreduce(BAND) of
// the free-slot masks runs over both groups at once, as a local allreduce,
// a swap between the two leaders, and a local broadcast
// (both_groups_band). Each intercommunicator also keeps a hidden
// intracommunicator over its local group (`local`), on which those local
// steps of later agreements run.
#include <algorithm>
#include <vector>

#include "base/attribute.h"
#include "base/comm_hints.h"
#include "base/context_id.h"
#include "base/datatype.h"
#include "base/group.h"
#include "base/op.h"
#include "coll/collectives.h"
#include "common/debug.h"
#include "p2p/pt2pt.h"
#include "p2p/revoke.h"
#include "runtime/comm_create.h"
#include "runtime/peers.h"

namespace ferry::communicators {
namespace {

// How the two leaders reach each other: over the peer communicator at
// MPI_Intercomm_create, over the intercommunicator itself afterwards.
struct LeaderLink {
  Communicator* comm;  // significant at the leader only
  int remote_leader;
  int tag;
  pt2pt::Context context;
};

// The leaders swap ints: `count` of mine for `their_count` of theirs.
Err swap(const LeaderLink& link, const int* mine, int count, int* theirs, int their_count) {
  int code = MPI_SUCCESS;
  const Datatype* ints = find_datatype(MPI_INT);
  if (Err e = pt2pt::sendrecv(pt2pt::Message{mine, count, ints}, link.remote_leader, link.tag, theirs, their_count,
                              ints, link.remote_leader, link.tag, link.comm, MPI_STATUS_IGNORE, &code, link.context))
    return e;
  if (code != MPI_SUCCESS) return Err(error_code::class_of(code), error_code::text(code));
  return {};
}

// words = the AND over every process of both groups. Called by every
// process of `local`, the leader being `leader`.
Err both_groups_band(Communicator* local, int leader, const LeaderLink& link, uint32_t words[], int count) {
  const Datatype* u32 = find_datatype(MPI_UINT32_T);
  std::vector<uint32_t> mine(words, words + count);
  if (local->size > 1) {
    if (Err e = coll::allreduce(mine.data(), words, count, u32, find_op(MPI_BAND), local)) return e;
  }
  if (local->rank == leader) {
    std::vector<uint32_t> theirs(static_cast<size_t>(count));
    if (Err e = swap(link, reinterpret_cast<const int*>(words), count, reinterpret_cast<int*>(theirs.data()), count))
      return e;
    for (int i = 0; i < count; ++i) words[i] &= theirs[static_cast<size_t>(i)];
  }
  if (local->size > 1) return coll::bcast(words, count, u32, leader, local);
  return {};
}

// The leaders swap member lists and each broadcasts what it got over
// `group_comm`, whose rank `leader` it is: every process learns the other
// side's list in *theirs. The lists travel as process names (runtime/peers.h),
// since the two groups may be of different jobs (a spawned job's, MPI-3.1
// §10.3): each process adopts the other group's processes before it takes
// part in any later step, so no peer is sent to before it knows the sender.
Err swap_members(const LeaderLink& link, Communicator* group_comm, int leader, const groups::Members& mine,
                 groups::Members* theirs) {
  const Datatype* ints = find_datatype(MPI_INT);
  const Datatype* chars = find_datatype(MPI_CHAR);
  std::string my_names = runtime::names_of(mine), their_names;
  int length = static_cast<int>(my_names.size()), their_length = 0;
  if (group_comm->rank == leader) {
    if (Err e = swap(link, &length, 1, &their_length, 1)) return e;
    their_names.resize(static_cast<size_t>(their_length));
    int code = MPI_SUCCESS;
    if (Err e = pt2pt::sendrecv(pt2pt::Message{my_names.data(), length, chars}, link.remote_leader, link.tag,
                                their_names.data(), their_length, chars, link.remote_leader, link.tag, link.comm,
                                MPI_STATUS_IGNORE, &code, link.context))
      return e;
    if (code != MPI_SUCCESS) return Err(error_code::class_of(code), error_code::text(code));
  }
  if (group_comm->size > 1) {
    if (Err e = coll::bcast(&their_length, 1, ints, leader, group_comm)) return e;
    their_names.resize(static_cast<size_t>(their_length));
    if (Err e = coll::bcast(their_names.data(), their_length, chars, leader, group_comm)) return e;
  }
  return runtime::adopt_all(their_names, theirs);
}

// A slot free at every process of both groups. `need`: this process gets
// an intercommunicator (and so the slot); the others only take part.
Err agree_both(const char* what, uint64_t priority, Communicator* local, int leader, const LeaderLink& link,
               uint32_t* slot, bool need = true) {
  sweep();
  Err e = allocator().agree(
      priority, need,
      [&](uint32_t words[], int count) { return both_groups_band(local, leader, link, words, count); }, slot);
  if (e.ok() && need) FERRY_DEBUG(kComm, "%s: slot %u (contexts %u-%u)", what, *slot, context_ids::p2p_context(*slot),
                          context_ids::p2p_context(*slot) + context_ids::kContextsPerSlot - 1);
  return e;
}

// The intercommunicator's own agreements go by its slot, which both groups share.
uint64_t priority_of(const Communicator* inter) {
  return context_ids::priority(context_ids::slot_of_context(inter->context));
}

// The leader link over an existing intercommunicator: local rank 0 talks to
// remote rank 0 on the collective context, under one tag for the whole
// operation (both groups number their collectives on it alike).
LeaderLink link_of(Communicator* inter) {
  return LeaderLink{inter, 0, inter->next_collective_tag(), pt2pt::Context::kCollective};
}

}  // namespace

Communicator* make_inter(Communicator* parent, Group* group, const groups::Members& remote, uint32_t slot,
                         Communicator* local) {
  Communicator* c = make(parent, group, context_ids::kNoSlot);
  c->inter = true;
  c->remote_size = static_cast<int>(remote.size());
  c->remote_group = groups::make(remote, world().rank);
  c->world_ranks = remote;  // point-to-point ranks name the remote group
  c->local = local;
  // Its context once both groups are set: a revoke notice is checked
  // against both (p2p/revoke.h).
  if (slot != context_ids::kNoSlot) {
    c->context = context_ids::p2p_context(slot);
    p2p::revoke::settle(c);
  }
  return c;
}

Err intercomm_create(Communicator* local_comm, int local_leader, Communicator* peer_comm, int remote_leader,
                     int tag, Communicator** out) {
  *out = nullptr;
  LeaderLink link{peer_comm, remote_leader, tag, pt2pt::Context::kPointToPoint};

  // The hidden local intracommunicator first: an ordinary agreement within
  // the local group.
  Communicator* local = nullptr;
  if (Err e = create(local_comm, local_comm->group, &local)) return e;

  // The leaders swap their groups and tell their group what they learned.
  groups::Members remote;
  Err e = swap_members(link, local_comm, local_leader, local_comm->group->members, &remote);
  // Overlapping groups are erroneous (MPI-3.1 §6.6.2).
  for (int member : remote)
    if (e.ok() && groups::rank_of(local_comm->group->members, member) != MPI_UNDEFINED)
      e = fail(MPI_ERR_COMM, "world rank %d is in both groups (the groups must be disjoint)", member);
  if (e) {
    discard(local);
    return e;
  }

  // One context for both groups. The priority is the same at every process
  // of both: it depends only on the tag.
  uint32_t slot = 0;
  if (Err agreed = agree_both("MPI_Intercomm_create",
                              context_ids::priority(context_ids::kSlots, context_ids::Origin::kCreateGroup,
                                                    static_cast<uint32_t>(tag)),
                              local, local_leader, link, &slot)) {
    discard(local);
    return agreed;
  }
  groups::retain(local_comm->group);
  *out = make_inter(local_comm, local_comm->group, remote, slot, local);
  return {};
}

Err intercomm_from_bridge(Communicator* local_comm, int local_leader, Communicator* bridge, int remote_leader,
                          int tag, const groups::Members& remote, Communicator** out) {
  *out = nullptr;
  LeaderLink link{bridge, remote_leader, tag, pt2pt::Context::kPointToPoint};
  Communicator* local = nullptr;
  if (Err e = create(local_comm, local_comm->group, &local)) return e;
  uint32_t slot = 0;
  if (Err agreed = agree_both("MPI_Comm_accept/connect",
                              context_ids::priority(context_ids::kSlots, context_ids::Origin::kCreateGroup,
                                                    static_cast<uint32_t>(tag)),
                              local, local_leader, link, &slot)) {
    discard(local);
    return agreed;
  }
  groups::retain(local_comm->group);
  *out = make_inter(local_comm, local_comm->group, remote, slot, local);
  return {};
}

Err intercomm_merge(Communicator* inter, bool high, Communicator** out) {
  *out = nullptr;
  LeaderLink link = link_of(inter);
  Communicator* local = inter->local;
  // The leaders swap their groups' `high` (every member passes the same,
  // MPI-3.1 §6.6.2) and tell their group.
  int mine = high ? 1 : 0, theirs = 0;
  if (local->rank == 0)
    if (Err e = swap(link, &mine, 1, &theirs, 1)) return e;
  if (local->size > 1)
    if (Err e = coll::bcast(&theirs, 1, find_datatype(MPI_INT), 0, local)) return e;
  // The group that said false comes first; on a tie, the group whose first
  // member has the lower world rank, which both groups see alike.
  bool local_first = mine != theirs ? mine == 0 : inter->group->members[0] < inter->remote_group->members[0];
  groups::Members members;
  const groups::Members& first = local_first ? inter->group->members : inter->remote_group->members;
  const groups::Members& second = local_first ? inter->remote_group->members : inter->group->members;
  members.insert(members.end(), first.begin(), first.end());
  members.insert(members.end(), second.begin(), second.end());

  uint32_t slot = 0;
  if (Err e = agree_both("MPI_Intercomm_merge", priority_of(inter), local, 0, link, &slot)) return e;
  *out = make(inter, groups::make(std::move(members), world().rank), slot);
  p2p::revoke::settle(*out);
  return {};
}

Err dup_inter(Communicator* inter, Communicator** out) {
  *out = nullptr;
  LeaderLink link = link_of(inter);
  Communicator* local = nullptr;
  if (Err e = create(inter->local, inter->local->group, &local)) return e;
  uint32_t slot = 0;
  if (Err e = agree_both("MPI_Comm_dup", priority_of(inter), inter->local, 0, link, &slot)) {
    discard(local);
    return e;
  }
  groups::retain(inter->group);
  Communicator* c = make_inter(inter, inter->group, inter->remote_group->members, slot, local);
  comm_hints::assign(*c, inter->hints);
  if (Err e = attributes::copy_all(attributes::Kind::kComm, inter, inter->handle, c, c->handle)) {
    (void)attributes::delete_all(attributes::Kind::kComm, c, c->handle);
    discard(c);
    return e;
  }
  *out = c;
  return {};
}

Err split_inter(Communicator* inter, int color, int key, Communicator** out) {
  *out = nullptr;
  // The new local group, with its hidden intracommunicator: an ordinary
  // split of the local group.
  Communicator* local = nullptr;
  if (Err e = split(inter->local, color, key, &local)) return e;

  // The remote group's (color, key) pairs, in remote rank order: one
  // allgather across the intercommunicator.
  const Datatype* ints = find_datatype(MPI_INT);
  int mine[2] = {color, key};
  std::vector<int> theirs(2 * static_cast<size_t>(inter->remote_size));
  Err e = coll::allgather(mine, 2, ints, theirs.data(), 2, ints, inter);
  // MPI-3.1 §6.4.2: remote ranks ordered by key, ties by remote rank.
  std::vector<std::pair<int, int>> same_color;  // (key, remote rank)
  if (e.ok() && color != MPI_UNDEFINED)
    for (int r = 0; r < inter->remote_size; ++r)
      if (theirs[2 * static_cast<size_t>(r)] == color) same_color.emplace_back(theirs[2 * static_cast<size_t>(r) + 1], r);
  std::stable_sort(same_color.begin(), same_color.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  groups::Members remote;
  for (const auto& m : same_color) remote.push_back(inter->remote_group->members[static_cast<size_t>(m.second)]);

  // One slot for every colour's intercommunicator (they are disjoint), agreed
  // over both groups. A colour missing from the other group gives
  // MPI_COMM_NULL.
  const bool member = local != nullptr && !remote.empty();
  uint32_t slot = 0;
  if (e.ok()) e = agree_both("MPI_Comm_split", priority_of(inter), inter->local, 0, link_of(inter), &slot, member);
  if (e || !member) {
    if (local != nullptr) discard(local);
    return e;
  }
  groups::retain(local->group);
  *out = make_inter(inter, local->group, remote, slot, local);
  return {};
}

Err create_inter(Communicator* inter, Group* group, Communicator** out) {
  *out = nullptr;
  // MPI-3.1 §6.4.2: the local group passes one subgroup of itself; the new
  // intercommunicator joins it to the subgroup the other group passed.
  Communicator* local = nullptr;
  if (Err e = create(inter->local, group, &local)) return e;

  // The leaders swap the subgroups and tell their group.
  LeaderLink link = link_of(inter);
  groups::Members remote;
  Err e = swap_members(link, inter->local, 0, group->members, &remote);
  // Either subgroup empty: MPI_COMM_NULL everywhere.
  const bool member = local != nullptr && !remote.empty();
  uint32_t slot = 0;
  if (e.ok()) e = agree_both("MPI_Comm_create", priority_of(inter), inter->local, 0, link, &slot, member);
  if (e || !member) {
    if (local != nullptr) discard(local);
    return e;
  }
  groups::retain(local->group);
  *out = make_inter(inter, local->group, remote, slot, local);
  return {};
}

}  // namespace ferry::communicators
