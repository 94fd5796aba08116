// The communicator behind a handle, as every MPI call on a communicator
// looks it up first: inline for MPI_COMM_WORLD and MPI_COMM_SELF, which
// most calls name, and communicators::find for the others (issue 29: the
// call to find was about a tenth of MPI_Comm_rank).
#pragma once

#include <cstdint>

#include "base/communicator.h"
#include "mpi.h"

namespace ferry::communicators {

// MPI_COMM_WORLD's and MPI_COMM_SELF's objects, by handle - MPI_COMM_WORLD
// (MPICH numbers them 0x44000000 and 0x44000001), while their handles are
// valid (create_predefined to destroy_all), else nullptr: what find
// answers for them.
extern Communicator* predefined[2];

inline Communicator* find_inline(MPI_Comm handle) {
  static_assert(MPI_COMM_SELF == MPI_COMM_WORLD + 1, "the predefined communicators' handles are adjacent");
  const uint32_t i = static_cast<uint32_t>(handle) - static_cast<uint32_t>(MPI_COMM_WORLD);
  if (i < 2) [[likely]] return predefined[i];
  return find(handle);
}

}  // namespace ferry::communicators
