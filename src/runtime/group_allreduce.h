// A bitwise-and allreduce over a subgroup of a communicator, for
// MPI_Comm_create_group (MPI-3.1 §6.4.2), the one construction that only
// the group's members call.
//
// Why not coll::allreduce on a communicator made of the group: messages
// match on the sender's rank in the communicator they travel on. Two
// create_group calls in a row on one parent, with the same tag but different
// groups, would number the same processes differently, and a message of the
// second call could match a receive still pending in the first. Here every
// message travels on the parent's group-collective context, under the
// caller's tag, and names its sender by parent rank, which is the same in
// every call; so the usual non-overtaking rule keeps the calls apart.
#pragma once

#include <cstdint>

#include "base/communicator.h"
#include "base/error.h"
#include "base/group.h"

namespace ferry {

// words[0..count) = the AND of every member's words. Called by every
// member of `group` (a subgroup of parent) with the same tag.
Err group_allreduce_band(Communicator* parent, const Group& group, int tag, uint32_t words[], int count);

}  // namespace ferry
