// Groups (MPI-3.1 §6.3). The set operations live in core/group; errors are
// raised on MPI_COMM_WORLD's handler, as groups belong to no communicator.
#include "api/api.h"
#include "base/group.h"

using namespace ferry;

namespace {

Group* checked_group(api::Call& call, MPI_Group handle, const char* argument) {
  if (!call.initialized()) return nullptr;
  Group* g = groups::find(handle);
  if (g == nullptr) {
    if (handle == MPI_GROUP_NULL) call.fail(MPI_ERR_GROUP, "%s is MPI_GROUP_NULL", argument);
    else call.fail(MPI_ERR_GROUP, "invalid %s handle 0x%x", argument, static_cast<unsigned>(handle));
  }
  return g;
}

// The user's new handle for a group made of `members` (MPI_GROUP_EMPTY when
// there are none).
MPI_Group new_group(groups::Members members) {
  return groups::make(std::move(members), communicators::world().rank)->handle;
}

// The pattern of MPI_Group_union, _intersection, _difference.
template <typename Op>
int set_operation(const char* name, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, Op op) {
  api::Call call(name);
  Group* g1 = checked_group(call, group1, "group1");
  Group* g2 = checked_group(call, group2, "group2");
  if (g1 == nullptr || g2 == nullptr || !call.not_null(newgroup, "newgroup")) return call.raise();
  *newgroup = new_group(op(g1->members, g2->members));
  return MPI_SUCCESS;
}

// The pattern of MPI_Group_incl, _excl, _range_incl, _range_excl.
template <typename Op>
int subset_operation(const char* name, MPI_Group group, MPI_Group* newgroup, Op op) {
  api::Call call(name);
  Group* g = checked_group(call, group, "group");
  if (g == nullptr || !call.not_null(newgroup, "newgroup")) return call.raise();
  groups::Members members;
  if (Err e = op(g->members, &members)) return call.result(std::move(e));
  *newgroup = new_group(std::move(members));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  api::Call call("MPI_Comm_group");
  Communicator* c = call.comm(comm);
  if (c == nullptr || !call.not_null(group, "group")) return call.raise();
  groups::retain(c->group);
  *group = c->group->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Comm_group)

extern "C" int PMPI_Group_size(MPI_Group group, int* size) {
  api::Call call("MPI_Group_size");
  Group* g = checked_group(call, group, "group");
  if (g == nullptr || !call.not_null(size, "size")) return call.raise();
  *size = g->size();
  return MPI_SUCCESS;
}
FERRY_ENTRY(Group_size)

extern "C" int PMPI_Group_rank(MPI_Group group, int* rank) {
  api::Call call("MPI_Group_rank");
  Group* g = checked_group(call, group, "group");
  if (g == nullptr || !call.not_null(rank, "rank")) return call.raise();
  *rank = g->rank;  // MPI_UNDEFINED when this process is not a member
  return MPI_SUCCESS;
}
FERRY_ENTRY(Group_rank)

extern "C" int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return subset_operation("MPI_Group_incl", group, newgroup, [&](const groups::Members& g, groups::Members* out) {
    return groups::incl(g, n, ranks, out);
  });
}
FERRY_ENTRY(Group_incl)

extern "C" int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return subset_operation("MPI_Group_excl", group, newgroup, [&](const groups::Members& g, groups::Members* out) {
    return groups::excl(g, n, ranks, out);
  });
}
FERRY_ENTRY(Group_excl)

extern "C" int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return subset_operation("MPI_Group_range_incl", group, newgroup,
                          [&](const groups::Members& g, groups::Members* out) {
                            return groups::range_incl(g, n, ranges, out);
                          });
}
FERRY_ENTRY(Group_range_incl)

extern "C" int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return subset_operation("MPI_Group_range_excl", group, newgroup,
                          [&](const groups::Members& g, groups::Members* out) {
                            return groups::range_excl(g, n, ranges, out);
                          });
}
FERRY_ENTRY(Group_range_excl)

extern "C" int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_operation("MPI_Group_union", group1, group2, newgroup, groups::set_union);
}
FERRY_ENTRY(Group_union)

extern "C" int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_operation("MPI_Group_intersection", group1, group2, newgroup, groups::intersection);
}
FERRY_ENTRY(Group_intersection)

extern "C" int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_operation("MPI_Group_difference", group1, group2, newgroup, groups::difference);
}
FERRY_ENTRY(Group_difference)

extern "C" int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                          int ranks2[]) {
  api::Call call("MPI_Group_translate_ranks");
  Group* g1 = checked_group(call, group1, "group1");
  Group* g2 = checked_group(call, group2, "group2");
  if (g1 == nullptr || g2 == nullptr) return call.raise();
  return call.result(groups::translate(g1->members, n, ranks1, g2->members, ranks2));
}
FERRY_ENTRY(Group_translate_ranks)

extern "C" int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  api::Call call("MPI_Group_compare");
  Group* g1 = checked_group(call, group1, "group1");
  Group* g2 = checked_group(call, group2, "group2");
  if (g1 == nullptr || g2 == nullptr || !call.not_null(result, "result")) return call.raise();
  *result = groups::compare(g1->members, g2->members);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Group_compare)

extern "C" int PMPI_Group_free(MPI_Group* group) {
  api::Call call("MPI_Group_free");
  if (!call.initialized() || !call.not_null(group, "group")) return call.raise();
  Group* g = checked_group(call, *group, "group");
  if (g == nullptr) return call.raise();
  // MPI_GROUP_EMPTY may be freed (operations hand it out as a result, as in
  // MPICH); it stays, only the user's handle is cleared.
  groups::release(g);
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Group_free)
