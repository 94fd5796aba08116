// Per-rank counts and displacements as the API passed them: `int` arrays
// from the classic calls, MPI_Count / MPI_Aint arrays from the large-count
// `_c` calls (MPI-4.0 §6.2.2: "const MPI_Count counts[]"). The collective
// core reads both through this view, element by element, so the int entry
// points hand their arrays over as they are, with no copy. (MPI_Count and
// MPI_Aint are the same C type in this ABI.)
#pragma once

#include <cstddef>

#include "mpi.h"

namespace ferry::coll {

class CountArray {
 public:
  CountArray() = default;
  CountArray(std::nullptr_t) {}
  CountArray(const int* narrow) : narrow_(narrow) {}
  CountArray(const MPI_Count* wide) : wide_(wide) {}

  MPI_Count operator[](size_t i) const { return narrow_ != nullptr ? narrow_[i] : wide_[i]; }
  bool null() const { return narrow_ == nullptr && wide_ == nullptr; }

 private:
  const int* narrow_ = nullptr;
  const MPI_Count* wide_ = nullptr;
};

// Displacements (in elements of the block's type, or in bytes for the w
// forms) read the same way.
using DisplArray = CountArray;

}  // namespace ferry::coll
