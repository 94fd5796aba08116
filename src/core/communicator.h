// Communicators: a group of ranks, a context that isolates their traffic, and
// the error handler that applies to calls on them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi.h"

namespace ferry {

struct Communicator {
  MPI_Comm handle = MPI_COMM_NULL;
  // Point-to-point traffic uses `context`, collectives `context + 1`, so a
  // collective never matches a user's message (MPI-3.1 §5.2).
  uint32_t context = 0;
  int rank = 0;
  int size = 0;
  // Communicator rank -> world rank; empty means the identity (MPI_COMM_WORLD).
  std::vector<int> world_ranks;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  // Collectives are called in the same order on every rank (MPI-3.1 §5.12),
  // so numbering them gives each one a tag that all ranks agree on, and
  // concurrent nonblocking collectives never match each other's messages.
  uint32_t collective_sequence = 0;
  int next_collective_tag() { return static_cast<int>(collective_sequence++ & 0x3fffffffu); }

  int world_rank(int r) const { return world_ranks.empty() ? r : world_ranks[static_cast<size_t>(r)]; }
  uint32_t collective_context() const { return context + 1; }
};

namespace communicators {

// Creates MPI_COMM_WORLD and MPI_COMM_SELF for this process.
void create_predefined(int world_rank, int world_size);
void destroy_all();
// The communicator behind a handle, or nullptr.
Communicator* find(MPI_Comm handle);
Communicator& world();
Communicator& self();
// One past the highest context id in use, for sizing matching tables.
uint32_t context_limit();

}  // namespace communicators
}  // namespace ferry
