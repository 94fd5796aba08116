// FERRY_PROFILE's MPI-IO counts, per file as Darshan's MPI-IO module keeps them: bytes read and
// written, access sizes, collective vs independent accesses, time. A file is known by the name it
// was opened with; its handles map to its slot from MPI_File_open to MPI_File_close.
#pragma once

#include <cstdint>

#include "common/profile_layout.h"
#include "mpi.h"

namespace ferry::profile::files {

// MPI_File_open returned `fh` for `name` after `ticks`.
void opened(MPI_File fh, const char* name, uint64_t ticks);
// MPI_File_close of `fh` (before the call: the handle is MPI_FILE_NULL after it).
void closing(MPI_File fh);
// A data access on `fh` of `bytes` (count x datatype size) that took `ticks`.
void note_access(MPI_File fh, bool write, bool collective, uint64_t bytes, uint64_t ticks);
// Any other MPI_File_ call on `fh`.
void note_time(MPI_File fh, uint64_t ticks);

// profile::start(): from now on the slots live in the mapping.
void move_to(profile_layout::File* mapped, uint32_t* num_files);

}  // namespace ferry::profile::files
