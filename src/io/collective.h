// The collective data accesses (MPI-3.1 §13.4: the _all calls and the split
// collectives' _begin): every process of the file's communicator calls, and
// the implementation may combine their accesses.
//
// Cost: one allgather of ten words per process to decide (io/file_domains.cc);
// then either direct access (each process its own, io/access.cc) or two-phase
// collective buffering (io/two_phase.h) and one allgather of four words to
// end with the same outcome everywhere.
#pragma once

#include <cstdint>

#include "base/error.h"
#include "io/access.h"
#include "io/datarep.h"
#include "io/file.h"

namespace ferry::io {

// Where two-phase finds the data when it is not host memory as the file
// holds it, so that each round's pieces take the detour on their way
// instead of the whole request before the rounds: through a representation
// that converts (io/datarep.h: `rep`, the user's buffer and the bytes one
// of its elements takes in the file), or between a GPU buffer that is one
// dense run and host memory (io/device_staging.h: `device_run`).
struct Detour {
  const datarep::Representation* rep = nullptr;  // nullptr: no conversion
  Buffer memory{};
  uint64_t element = 1;
  char* device_run = nullptr;  // the GPU buffer's first byte of data
};

// Collective over f.comm. `position` and `bytes`: this process's access in
// view bytes; `checked`: what io/access.cc found wrong with its arguments
// (then every process returns an error, this one its own). On return either
// *direct is true (the processes chose to access independently: the caller
// does it, as for a noncollective call) or the access is done: *done bytes
// moved, the same error class on every process. `detour`: the data goes
// from (to) there, `buffer` is not used.
Err collective_access(File& f, Direction direction, uint64_t position, const Buffer& buffer, uint64_t bytes,
                      Err checked, bool* direct, uint64_t* done, const Detour* detour = nullptr);

}  // namespace ferry::io
