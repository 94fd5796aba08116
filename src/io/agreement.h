// The collective file calls end the same way on every process (MPI-3.1
// §13.2.1, §13.7): when one process fails, all return an error of the same
// class, and arguments that must be equal everywhere (the access mode, a
// new size, the atomicity flag) are checked to be, with MPI_ERR_NOT_SAME.
//
// Cost: one allreduce of a few 64-bit words on success; a failure adds a
// broadcast of the failing process's message.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "base/communicator.h"
#include "base/error.h"

namespace ferry::io {

// An argument that every process must pass the same value of.
struct SameEverywhere {
  const char* argument;  // "amode"
  int64_t value;
};

// Collective over `c`: if `local` (this process's outcome) failed on some
// process, returns the error of the lowest-ranked failing process on every
// process (the others' message says which process failed and why);
// otherwise MPI_ERR_NOT_SAME on every process if the processes passed
// different values of an argument in `same`; otherwise success.
Err agree(Communicator* c, Err local, std::initializer_list<SameEverywhere> same = {});

}  // namespace ferry::io
