// How many communicator handles have been retired (MPI_Comm_free, a failed creation's discard,
// the end of MPI): what a cache of handle -> communicator needs to know that it is still current.
// A handle is given to another communicator, and its object destroyed, only after it is retired,
// so an entry made while this count had its present value still names the handle's communicator.
// FERRY_PROFILE's wrappers keep such a cache for sends (bindings/gen_qmpi.py, world_peer).
#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::communicators {

// Bumped before the handle leaves the table, so that a thread given the handle's next
// communicator (after the table's lock, and the program's own synchronization) sees the bump.
extern std::atomic<uint64_t> retirements;

}  // namespace ferry::communicators
