// Communicators from groups alone (MPI-4.0 §7.4.2, §7.6.2): the Sessions
// model's constructors, which have no parent communicator. The processes
// agree over a hidden copy of the world (communicators::session_world())
// exactly as MPI_Comm_create_group agrees over its parent; the string tag,
// hashed, is the tag of that agreement, so creations running at once with
// different tags never take each other's messages.
#include <algorithm>
#include <string>

#include "base/errhandler.h"
#include "base/group.h"
#include "common/debug.h"
#include "runtime/comm_create.h"

namespace ferry::communicators {
namespace {

// FNV-1a, folded to a non-negative int: the tag of the group allreduce.
int tag_of(const std::string& stringtag) {
  uint32_t h = 2166136261u;
  for (unsigned char c : stringtag) {
    h ^= c;
    h *= 16777619u;
  }
  return static_cast<int>(h & 0x7fffffffu);
}

}  // namespace

Err create_from_group(Group* group, const std::string& stringtag, Communicator** out) {
  *out = nullptr;
  if (group->rank == MPI_UNDEFINED)
    return fail(MPI_ERR_GROUP, "the calling process is not a member of group (size %d)", group->size());
  if (Err e = create_group(&session_world(), group, tag_of(stringtag), out)) return e;
  if (*out != nullptr) {
    // The hidden parent lends nothing but its context space.
    errhandlers::set(**out, MPI_ERRORS_ARE_FATAL);
    FERRY_DEBUG(kComm, "MPI_Comm_create_from_group \"%s\": %d ranks", stringtag.c_str(), group->size());
  }
  return {};
}

Err intercomm_create_from_groups(Group* local, int local_leader, Group* remote, int remote_leader,
                                 const std::string& stringtag, Communicator** out) {
  *out = nullptr;
  if (local->rank == MPI_UNDEFINED)
    return fail(MPI_ERR_GROUP, "the calling process is not a member of local_group (size %d)", local->size());
  for (int member : remote->members)
    if (groups::rank_of(local->members, member) != MPI_UNDEFINED)
      return fail(MPI_ERR_GROUP, "local_group and remote_group overlap (world rank %d is in both)", member);
  const int my_leader = local->members[static_cast<size_t>(local_leader)];
  const int their_leader = remote->members[static_cast<size_t>(remote_leader)];

  // Phase 1: one intracommunicator over both groups, ordered the same at
  // every process (the group whose leader has the lower world rank first).
  const bool local_first = my_leader < their_leader;
  groups::Members both = local_first ? local->members : remote->members;
  const groups::Members& second = local_first ? remote->members : local->members;
  both.insert(both.end(), second.begin(), second.end());
  Group* union_group = groups::make(both, local->members[static_cast<size_t>(local->rank)]);
  Communicator* bridge = nullptr;
  Err e = create_from_group(union_group, "ferry:intercomm:" + stringtag, &bridge);
  groups::release(union_group);
  if (e) return e;

  // Phase 2: the local group's own intracommunicator, in local_group's order.
  Communicator* local_comm = nullptr;
  e = split(bridge, local_first ? 0 : 1, local->rank, &local_comm);

  // Phase 3: the leaders meet over the bridge (MPI_Intercomm_create).
  if (!e) {
    int remote_leader_in_bridge = groups::rank_of(both, their_leader);
    e = intercomm_create(local_comm, local_leader, bridge, remote_leader_in_bridge, 0, out);
  }
  if (local_comm != nullptr) (void)free_communicator(local_comm);
  (void)free_communicator(bridge);
  if (!e && *out != nullptr) errhandlers::set(**out, MPI_ERRORS_ARE_FATAL);
  return e;
}

}  // namespace ferry::communicators
