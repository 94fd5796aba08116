// Limits that MPI programs can query (MPI_TAG_UB) or run into.
#pragma once

#include <climits>

namespace ferry {

// The largest tag (attribute MPI_TAG_UB); tags travel as 32-bit ints.
constexpr int kTagUpperBound = INT_MAX;

}  // namespace ferry
