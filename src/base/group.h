// Groups (MPI-3.1 §6.3): ordered sets of processes, named by world rank.
//
// A group is immutable once made, so communicators and users share one
// object; it is reference counted (each MPI_Group handle the user holds and
// each communicator built on it own one reference) and destroyed with the
// last one. MPI_GROUP_EMPTY is a predefined object that is never destroyed.
//
// The set operations are pure functions on member lists, so unit tests check
// them without a running job; the API layer wraps their results in groups.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/error.h"
#include "mpi.h"

namespace ferry {

struct Group {
  MPI_Group handle = MPI_GROUP_NULL;
  // Group rank -> world rank.
  std::vector<int> members;
  // This process's rank in the group, or MPI_UNDEFINED.
  int rank = MPI_UNDEFINED;
  std::atomic<int> references{1};

  int size() const { return static_cast<int>(members.size()); }
};

namespace groups {

// ---- Pure operations on member lists (world ranks) -------------------------
// Each validates its arguments as MPI-3.1 §6.3.2 requires and fills *out;
// errors name the offending argument ("ranks[2] = 7 is not a rank of the
// group (size 4)"), the API layer prefixes the call.
using Members = std::vector<int>;

Err incl(const Members& g, int n, const int ranks[], Members* out);
Err excl(const Members& g, int n, const int ranks[], Members* out);
Err range_incl(const Members& g, int n, const int ranges[][3], Members* out);
Err range_excl(const Members& g, int n, const int ranges[][3], Members* out);
// MPI-3.1 §6.3.2: union is g1 followed by the members of g2 not in g1;
// intersection and difference keep g1's order.
Members set_union(const Members& g1, const Members& g2);
Members intersection(const Members& g1, const Members& g2);
Members difference(const Members& g1, const Members& g2);
// ranks2[i] = rank in g2 of the process that has rank ranks1[i] in g1, or
// MPI_UNDEFINED; MPI_PROC_NULL translates to MPI_PROC_NULL.
Err translate(const Members& g1, int n, const int ranks1[], const Members& g2, int ranks2[]);
// MPI_IDENT (same members, same order), MPI_SIMILAR (same members) or MPI_UNEQUAL.
int compare(const Members& g1, const Members& g2);
// The rank of `world_rank` in g, or MPI_UNDEFINED.
int rank_of(const Members& g, int world_rank);

// ---- Group objects ---------------------------------------------------------
// A new group of these members with one reference and a handle; an empty
// list gives MPI_GROUP_EMPTY's object (with a reference taken). `my_world_rank`
// decides Group::rank.
Group* make(Members members, int my_world_rank);
// The group behind a handle (MPI_GROUP_EMPTY included), or nullptr.
Group* find(MPI_Group handle);
Group* empty();
void retain(Group* g);
// Drops a reference; the last one destroys the group and frees its handle.
void release(Group* g);
// Groups that exist besides MPI_GROUP_EMPTY (for leak checks in tests).
size_t live();

}  // namespace groups
}  // namespace ferry
