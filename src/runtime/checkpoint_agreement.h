// How the ranks of a checkpoint or restore agree on each step's outcome, so
// that all of them return the same answer (the same rule as MPI-IO's
// collective calls, io/agreement.h, which sits above this layer).
//
// Cost: one allreduce of two 64-bit words; a failure adds a broadcast of
// the failing rank's message.
#pragma once

#include <cstdint>

#include "base/communicator.h"
#include "base/error.h"

namespace ferry::runtime::checkpoint {

// Collective over `c`: if `local` failed on any rank, every rank returns the
// lowest failing rank's error (the others' message says "rank R: ...");
// otherwise success, and `*value` (when given) becomes the largest value
// any rank passed.
Err agree(Communicator* c, Err local, int64_t* value = nullptr);

}  // namespace ferry::runtime::checkpoint
