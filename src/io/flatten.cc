#include "io/flatten.h"

#include <algorithm>

namespace ferry::io {

FlatAccess::FlatAccess(const View& view, uint64_t position, uint64_t bytes)
    : view_(view), position_(position), bytes_(bytes) {
  if (bytes_ == 0) return;
  first_ = view_.file_offset(position_);
  end_ = view_.file_offset(position_ + bytes_ - 1) + 1;
}

uint64_t FlatAccess::packed_below(uint64_t offset) const {
  if (bytes_ == 0 || offset <= first_) return 0;
  if (offset >= end_) return bytes_;
  uint64_t below = view_.position_of_offset(offset);
  if (below <= position_) return 0;
  return std::min(below - position_, bytes_);
}

void FlatAccess::runs(uint64_t from, uint64_t to, type::RunVisitor& visit) const {
  if (to > from) view_.for_each_run(position_ + from, to - from, visit);
}

bool FlatAccess::ordered(const View& view) {
  const Datatype& ft = view.filetype();
  if (ft.contiguous || ft.size == 0) return true;
  return ft.true_lb >= 0 && ft.true_lb + ft.true_extent <= ft.extent;
}

}  // namespace ferry::io
