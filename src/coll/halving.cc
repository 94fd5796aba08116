#include "coll/halving.h"

#include <algorithm>

#include "coll/typed_buffer.h"

namespace ferry::coll {
namespace {

// Elements [starts[lo], starts[hi]) as (first element, count).
MPI_Count span(const std::vector<size_t>& starts, int lo, int hi, size_t* first) {
  *first = starts[static_cast<size_t>(lo)];
  return static_cast<MPI_Count>(starts[static_cast<size_t>(hi)] - *first);
}

// The range a partner holds at the level where `owned` is this rank's: its
// sibling within the parent range (the lower half when this rank's bit is
// set, the upper half when it is clear).
PositionRange sibling(PositionRange owned, bool lower) {
  int width = owned.hi - owned.lo;
  return lower ? PositionRange{owned.hi, owned.hi + width} : PositionRange{owned.lo - width, owned.lo};
}

}  // namespace

std::vector<size_t> equal_positions(size_t count, int pof2) {
  const Blocks blocks{count, static_cast<size_t>(pof2)};
  std::vector<size_t> starts(static_cast<size_t>(pof2) + 1);
  for (size_t i = 0; i < starts.size(); ++i) starts[i] = blocks.start(i);
  return starts;
}

size_t halving_scratch_count(const std::vector<size_t>& starts) {
  const size_t half = (starts.size() - 1) / 2;
  return std::max(starts[half] - starts.front(), starts.back() - starts[half]);
}

PositionRange halving_reduce_scatter(Schedule& s, const Fold& f, void* acc, void* tmp,
                                     const std::vector<size_t>& starts, const Datatype* type, const Op* op) {
  PositionRange r{0, f.pof2};
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    const int partner = f.real(f.newrank ^ mask);
    const bool lower = (f.newrank & mask) == 0;
    const int mid = r.lo + (r.hi - r.lo) / 2;
    const PositionRange keep = lower ? PositionRange{r.lo, mid} : PositionRange{mid, r.hi};
    const PositionRange give = lower ? PositionRange{mid, r.hi} : PositionRange{r.lo, mid};
    size_t keep_first = 0, give_first = 0;
    MPI_Count keep_n = span(starts, keep.lo, keep.hi, &keep_first);
    MPI_Count give_n = span(starts, give.lo, give.hi, &give_first);
    char* mine = element(acc, keep_first, type);
    void* theirs = tmp;
    // The partner's partial of the half kept here, for the half given away.
    s.recv(theirs, keep_n, type, partner);
    s.send(element(acc, give_first, type), give_n, type, partner);
    if (!lower || op->commutative) {
      s.reduce(theirs, mine, keep_n, type, op);  // partner's block is the lower one (or order is free)
    } else {
      s.reduce(mine, theirs, keep_n, type, op);  // this block is the lower one: mine op theirs,
      s.copy(theirs, keep_n, type, mine, keep_n, type);  // then back into place
    }
    s.end_round();
    r = keep;
  }
  return r;
}

void doubling_allgather(Schedule& s, const Fold& f, void* acc, PositionRange owned,
                        const std::vector<size_t>& starts, const Datatype* type) {
  for (int mask = f.pof2 / 2; mask >= 1; mask >>= 1) {
    const int partner = f.real(f.newrank ^ mask);
    const PositionRange other = sibling(owned, (f.newrank & mask) == 0);
    size_t mine_first = 0, other_first = 0;
    MPI_Count mine_n = span(starts, owned.lo, owned.hi, &mine_first);
    MPI_Count other_n = span(starts, other.lo, other.hi, &other_first);
    s.recv(element(acc, other_first, type), other_n, type, partner);
    s.send(element(acc, mine_first, type), mine_n, type, partner);
    s.end_round();
    owned = PositionRange{std::min(owned.lo, other.lo), std::max(owned.hi, other.hi)};
  }
}

void doubling_gather(Schedule& s, const Fold& f, void* acc, PositionRange owned, const std::vector<size_t>& starts,
                     const Datatype* type) {
  // In the round at distance `mask` only new ranks below 2*mask take part:
  // those with the bit set hand everything they have to the partner below
  // and are done.
  for (int mask = f.pof2 / 2; mask >= 1 && f.newrank < 2 * mask; mask >>= 1) {
    const int partner = f.real(f.newrank ^ mask);
    const bool lower = (f.newrank & mask) == 0;
    size_t first = 0;
    if (!lower) {
      MPI_Count n = span(starts, owned.lo, owned.hi, &first);
      s.send(element(acc, first, type), n, type, partner);
      s.end_round();
      return;
    }
    const PositionRange other = sibling(owned, true);
    MPI_Count n = span(starts, other.lo, other.hi, &first);
    s.recv(element(acc, first, type), n, type, partner);
    s.end_round();
    owned = PositionRange{owned.lo, other.hi};
  }
}

}  // namespace ferry::coll
