// How split collective data accesses complete (MPI-3.1 §13.4.5): a *_begin
// does its access at the call and stores the status for the matching *_end
// (correct MPI semantics: completion may happen any time before the end).
// The nonblocking collective ones run in the background
// (io/nonblocking_collective.h).
#pragma once

#include "base/error.h"
#include "io/file.h"
#include "mpi.h"

namespace ferry::io {

// *_begin: records that `call` began a split collective on `f` whose end
// will report `status`. MPI_ERR_OTHER if one is already in progress (§13.4.5
// allows one per file handle at a time).
Err begin_split(File& f, const char* call, const MPI_Status& status);
// Checks, before the access, that no split collective is in progress.
Err check_no_split(const File& f, const char* call);
// *_end: `begin_call` names the *_begin that must have started it
// ("MPI_File_read_all_begin"); reports its status and ends it.
Err end_split(File& f, const char* begin_call, MPI_Status* status);

}  // namespace ferry::io
