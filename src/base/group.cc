#include "base/group.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "base/handles.h"

namespace ferry::groups {
namespace {

// Ranks of a group that an argument names must be valid and distinct
// (MPI-3.1 §6.3.2); `chosen` marks the ones seen so far.
Err check_rank(const Members& g, int rank, const char* what, std::vector<bool>& chosen) {
  if (rank < 0 || rank >= static_cast<int>(g.size()))
    return fail(MPI_ERR_RANK, "%s is %d, not a rank of the group (size %zu)", what, rank, g.size());
  if (chosen[static_cast<size_t>(rank)]) return fail(MPI_ERR_RANK, "%s: rank %d appears twice", what, rank);
  chosen[static_cast<size_t>(rank)] = true;
  return {};
}

// The ranks a list of (first, last, stride) triplets denotes, in order.
// MPI-3.1 §6.3.2: a triplet stands for first, first + stride, ... up to
// last (floor((last - first) / stride) + 1 ranks; none if that is <= 0);
// first and last must be ranks of the group and the stride nonzero.
Err expand_ranges(const Members& g, int n, const int ranges[][3], std::vector<int>* ranks) {
  if (n < 0) return fail(MPI_ERR_ARG, "n is %d (must be >= 0)", n);
  if (n > 0 && ranges == nullptr) return fail(MPI_ERR_ARG, "ranges is NULL with n = %d", n);
  const int size = static_cast<int>(g.size());
  std::vector<bool> chosen(g.size(), false);
  for (int i = 0; i < n; ++i) {
    const long long first = ranges[i][0];
    const long long last = ranges[i][1];
    const long long stride = ranges[i][2];
    if (stride == 0) return fail(MPI_ERR_ARG, "ranges[%d] has stride 0", i);
    if (first < 0 || first >= size || last < 0 || last >= size)
      return fail(MPI_ERR_RANK, "ranges[%d] = (%lld, %lld, %lld) leaves the group (size %d)", i, first, last,
                  stride, size);
    long long span = last - first;
    // floor division for either sign of stride
    long long steps = span / stride - ((span % stride != 0 && ((span < 0) != (stride < 0))) ? 1 : 0);
    for (long long k = 0; k <= steps; ++k) {
      int r = static_cast<int>(first + k * stride);
      if (chosen[static_cast<size_t>(r)])
        return fail(MPI_ERR_RANK, "ranges[%d] names rank %d, which an earlier range already names", i, r);
      chosen[static_cast<size_t>(r)] = true;
      ranks->push_back(r);
    }
  }
  return {};
}

Members excluding(const Members& g, const std::vector<bool>& excluded) {
  Members out;
  out.reserve(g.size());
  for (size_t i = 0; i < g.size(); ++i)
    if (!excluded[i]) out.push_back(g[i]);
  return out;
}

std::unordered_set<int> as_set(const Members& g) { return std::unordered_set<int>(g.begin(), g.end()); }

// Group objects, looked up and changed from any thread (base/handles.h).
handle::Table<Group> table;
// MPI_GROUP_EMPTY; its handle is set before main, never written again
// (threads look it up at any time).
Group empty_group{.handle = MPI_GROUP_EMPTY, .members = {}, .rank = MPI_UNDEFINED, .references{1}};

}  // namespace

Err incl(const Members& g, int n, const int ranks[], Members* out) {
  // More ranks than members means a repeated rank, reported as such below.
  if (n < 0) return fail(MPI_ERR_ARG, "n is %d (must be >= 0)", n);
  if (n > 0 && ranks == nullptr) return fail(MPI_ERR_ARG, "ranks is NULL with n = %d", n);
  std::vector<bool> chosen(g.size(), false);
  out->clear();
  out->reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    char what[32];
    std::snprintf(what, sizeof what, "ranks[%d]", i);
    if (Err e = check_rank(g, ranks[i], what, chosen)) return e;
    out->push_back(g[static_cast<size_t>(ranks[i])]);
  }
  return {};
}

Err excl(const Members& g, int n, const int ranks[], Members* out) {
  // More ranks than members means a repeated rank, reported as such below.
  if (n < 0) return fail(MPI_ERR_ARG, "n is %d (must be >= 0)", n);
  if (n > 0 && ranks == nullptr) return fail(MPI_ERR_ARG, "ranks is NULL with n = %d", n);
  std::vector<bool> chosen(g.size(), false);
  for (int i = 0; i < n; ++i) {
    char what[32];
    std::snprintf(what, sizeof what, "ranks[%d]", i);
    if (Err e = check_rank(g, ranks[i], what, chosen)) return e;
  }
  *out = excluding(g, chosen);
  return {};
}

Err range_incl(const Members& g, int n, const int ranges[][3], Members* out) {
  std::vector<int> ranks;
  if (Err e = expand_ranges(g, n, ranges, &ranks)) return e;
  out->clear();
  out->reserve(ranks.size());
  for (int r : ranks) out->push_back(g[static_cast<size_t>(r)]);
  return {};
}

Err range_excl(const Members& g, int n, const int ranges[][3], Members* out) {
  std::vector<int> ranks;
  if (Err e = expand_ranges(g, n, ranges, &ranks)) return e;
  std::vector<bool> excluded(g.size(), false);
  for (int r : ranks) excluded[static_cast<size_t>(r)] = true;
  *out = excluding(g, excluded);
  return {};
}

Members set_union(const Members& g1, const Members& g2) {
  Members out = g1;
  std::unordered_set<int> in_g1 = as_set(g1);
  for (int p : g2)
    if (!in_g1.count(p)) out.push_back(p);
  return out;
}

Members intersection(const Members& g1, const Members& g2) {
  std::unordered_set<int> in_g2 = as_set(g2);
  Members out;
  for (int p : g1)
    if (in_g2.count(p)) out.push_back(p);
  return out;
}

Members difference(const Members& g1, const Members& g2) {
  std::unordered_set<int> in_g2 = as_set(g2);
  Members out;
  for (int p : g1)
    if (!in_g2.count(p)) out.push_back(p);
  return out;
}

Err translate(const Members& g1, int n, const int ranks1[], const Members& g2, int ranks2[]) {
  if (n < 0) return fail(MPI_ERR_ARG, "n is %d (must be >= 0)", n);
  if (n > 0 && (ranks1 == nullptr || ranks2 == nullptr))
    return fail(MPI_ERR_ARG, "%s is NULL with n = %d", ranks1 == nullptr ? "ranks1" : "ranks2", n);
  for (int i = 0; i < n; ++i) {
    int r = ranks1[i];
    if (r != MPI_PROC_NULL && (r < 0 || r >= static_cast<int>(g1.size())))
      return fail(MPI_ERR_RANK, "ranks1[%d] is %d, not a rank of group1 (size %zu)", i, r, g1.size());
  }
  // One pass over g2 instead of a search per rank: translating a whole
  // large group stays linear.
  std::unordered_map<int, int> rank_in_g2;
  rank_in_g2.reserve(g2.size());
  for (size_t j = 0; j < g2.size(); ++j) rank_in_g2.emplace(g2[j], static_cast<int>(j));
  for (int i = 0; i < n; ++i) {
    int r = ranks1[i];
    if (r == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    auto it = rank_in_g2.find(g1[static_cast<size_t>(r)]);
    ranks2[i] = it == rank_in_g2.end() ? MPI_UNDEFINED : it->second;
  }
  return {};
}

int compare(const Members& g1, const Members& g2) {
  if (g1 == g2) return MPI_IDENT;
  if (g1.size() != g2.size()) return MPI_UNEQUAL;
  Members a = g1;
  Members b = g2;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b ? MPI_SIMILAR : MPI_UNEQUAL;
}

int rank_of(const Members& g, int world_rank) {
  auto it = std::find(g.begin(), g.end(), world_rank);
  return it == g.end() ? MPI_UNDEFINED : static_cast<int>(it - g.begin());
}

Group* make(Members members, int my_world_rank) {
  if (members.empty()) {
    retain(empty());
    return empty();
  }
  auto* g = new Group;
  g->rank = rank_of(members, my_world_rank);
  g->members = std::move(members);
  g->handle = handle::make_dynamic(handle::Object::kGroup, table.add(g));
  return g;
}

Group* empty() { return &empty_group; }

Group* find(MPI_Group h) {
  if (h == MPI_GROUP_EMPTY) return empty();
  if (!handle::is_dynamic(h, handle::Object::kGroup)) return nullptr;
  return table.get(handle::index_of(h));
}

void retain(Group* g) { g->references.fetch_add(1, std::memory_order_relaxed); }

void release(Group* g) {
  if (g == &empty_group) return;  // predefined: never destroyed
  if (g->references.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  table.remove(handle::index_of(g->handle));
  delete g;
}

size_t live() { return table.live(); }

}  // namespace ferry::groups
