// Binomial-tree reduce to group rank 0, then binomial broadcast back down the
// same tree. The messages are a few hundred bytes (a context-id mask), so
// latency is all that counts.
//
// Cost = 2 ceil(log2 n) (alpha + m beta) + ceil(log2 n) m gamma.
#include "runtime/group_allreduce.h"

#include <unordered_map>
#include <vector>

#include "coll/schedule.h"
#include "base/op.h"

namespace ferry {

Err group_allreduce_band(Communicator* parent, const Group& group, int tag, uint32_t words[], int count) {
  const int n = group.size();
  const int me = group.rank;
  if (n == 1) return {};

  // Group rank -> parent rank.
  std::unordered_map<int, int> parent_rank_of_world;
  for (int r = 0; r < parent->size; ++r) parent_rank_of_world.emplace(parent->world_rank(r), r);
  std::vector<int> parent_rank(static_cast<size_t>(n));
  for (size_t i = 0; i < parent_rank.size(); ++i) parent_rank[i] = parent_rank_of_world.at(group.members[i]);
  auto peer = [&](int group_rank) { return parent_rank[static_cast<size_t>(group_rank)]; };

  // The parent, seen through its group-collective context, under the
  // caller's tag.
  Communicator via = *parent;
  via.context = parent->group_collective_context() - 1;
  via.fixed_collective_tag = tag;
  via.group = nullptr;

  const Datatype* type = find_datatype(MPI_UINT32_T);
  const Op* band = find_op(MPI_BAND);
  coll::Schedule s(&via);
  auto* incoming = static_cast<uint32_t*>(s.scratch(sizeof(uint32_t) * static_cast<size_t>(count)));

  // Phase 1: reduce towards group rank 0. At distance `mask`, a rank with
  // that bit set sends what it has to rank - mask and is done; the others
  // fold in what rank + mask sends.
  for (int mask = 1; mask < n; mask <<= 1) {
    if (me & mask) {
      s.send(words, count, type, peer(me - mask));
      s.end_round();
      break;
    }
    if (me + mask < n) {
      s.recv(incoming, count, type, peer(me + mask));
      s.reduce(incoming, words, count, type, band);
      s.end_round();
    }
  }

  // Phase 2: broadcast the result down the same tree: each rank hears from
  // the rank it sent to, then passes it on to those that sent to it.
  int top = 1;
  while (top < n) top <<= 1;
  int lowest_bit = me == 0 ? top : (me & -me);
  if (me != 0) {
    s.recv(words, count, type, peer(me - lowest_bit));
    s.end_round();
  }
  for (int mask = lowest_bit >> 1; mask >= 1; mask >>= 1)
    if (me + mask < n) s.send(words, count, type, peer(me + mask));
  s.end_round();
  return s.run();
}

}  // namespace ferry
