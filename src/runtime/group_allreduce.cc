// The collectives' own binomial reduce to group rank 0 and binomial
// broadcast back (coll/reduce/binomial.cc, coll/bcast/binomial.cc), run
// among the group's members only (a member schedule). The messages are a few
// hundred bytes (a context-id mask), so latency is all that counts.
//
// Cost = 2 ceil(log2 n) (alpha + m beta) + ceil(log2 n) m gamma.
#include "runtime/group_allreduce.h"

#include <unordered_map>
#include <vector>

#include "base/communicator.h"
#include "base/op.h"
#include "coll/bcast/algorithms.h"
#include "coll/reduce/algorithms.h"
#include "coll/schedule.h"

namespace ferry {

Err group_allreduce_band(Communicator* parent, const Group& group, int tag, uint32_t words[], int count) {
  const int n = group.size();
  if (n == 1) return {};

  // Group rank -> parent rank.
  std::unordered_map<int, int> parent_rank_of_world;
  for (int r = 0; r < parent->size; ++r) parent_rank_of_world.emplace(parent->world_rank(r), r);
  std::vector<int> parent_rank(static_cast<size_t>(n));
  for (size_t i = 0; i < parent_rank.size(); ++i) parent_rank[i] = parent_rank_of_world.at(group.members[i]);

  // The parent, seen through its group-collective context, under the
  // caller's tag: a shadow (communicators::shadow, an intracommunicator's:
  // every caller's parent is one), whose requests keep the parent alive.
  Communicator via;
  communicators::shadow(*parent, tag, -1, &via, nullptr);
  via.context = parent->group_collective_context() - 1;

  const Datatype* type = find_datatype(MPI_UINT32_T);
  coll::Schedule s(&via, std::move(parent_rank), group.rank);
  coll::reduce_binomial(s, MPI_IN_PLACE, words, count, type, find_op(MPI_BAND), 0);
  coll::bcast_binomial(s, words, count, type, 0);
  return s.run();
}

}  // namespace ferry
