// Collective IO, phase 1: one process's access flattened into file runs,
// lazily (ROMIO's ADIOI_Calc_my_off_len, without its list).
//
// An access is view bytes [position, position + bytes) (MPI-3.1 §13.3: the
// view's data, holes not counted). Its file runs are never stored: they are
// walked through the view (io/view.h: the datatype engine's nested loops,
// so a 3-D subarray is a few loops and a call per contiguous run), and only
// for the part a round needs. What makes that possible is that a view maps
// data to file offsets in order (§13.3 requires typemaps with
// nondecreasing displacements, and `ordered()` checks that tiles do not
// overlap): the part of the access that falls in a file range [lo, hi) is
// one range of its packed bytes, [packed_below(lo), packed_below(hi)).
//
// Cost: first/end and each packed_below walk at most one filetype tile;
// runs() costs a call per run it reports. No hint steers this phase.
#pragma once

#include <cstdint>

#include "base/type_pack.h"
#include "io/view.h"

namespace ferry::io {

class FlatAccess {
 public:
  FlatAccess(const View& view, uint64_t position, uint64_t bytes);

  uint64_t bytes() const { return bytes_; }
  // The file range the access touches: [first, end); empty when bytes is 0.
  uint64_t first() const { return first_; }
  uint64_t end() const { return end_; }
  // One run of the file, no holes (every offset in [first, end) is data).
  bool contiguous() const { return bytes_ > 0 && end_ - first_ == bytes_; }

  // How many of the access's bytes lie below file offset `offset`.
  uint64_t packed_below(uint64_t offset) const;
  // visit.run(file offset, length) for the runs of packed bytes [from, to).
  void runs(uint64_t from, uint64_t to, type::RunVisitor& visit) const;

  // Whether the view maps data to file offsets in order, which phases 2-4
  // rely on: the filetype's tiles do not overlap (its data fits in its
  // extent, counted from its origin). Views that break it are accessed
  // independently.
  static bool ordered(const View& view);

 private:
  const View& view_;
  uint64_t position_;
  uint64_t bytes_;
  uint64_t first_ = 0, end_ = 0;
};

}  // namespace ferry::io
