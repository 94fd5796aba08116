// The data path (MPI-3.1 §13.4): moving `count` elements of a memory
// datatype between the user's buffer and the file through the view.
//
// Memory and file are walked side by side in bounded chunks: the memory
// side is packed (or unpacked) through the datatype engine a chunk at a
// time, into a staging buffer of at most kStagingBytes (none at all when
// the buffer is one dense run), and the file side is the view's runs of
// that chunk (io/view.h), each one pwrite or pread. So a request of any
// size costs bounded memory, and a file view costs one system call per
// contiguous run of the file. Offsets and sizes are 64-bit throughout.
// A GPU buffer is replaced by host stand-ins first (io/device_staging.h).
//
// The collective forms (_all, and the split collectives' _begin) go through
// io/collective.h, which aggregates them (two-phase collective buffering)
// or lets each process access on its own; the nonblocking ones run there
// too, on the file's thread (io/nonblocking_collective.h), the independent
// ones on the I/O worker (io/worker.h).
#pragma once

#include <cstdint>

#include "base/datatype.h"
#include "base/error.h"
#include "io/file.h"
#include "mpi.h"

namespace ferry::io {

enum class Direction { kRead, kWrite };

// What a data access call was given.
struct Buffer {
  void* data;
  uint64_t count;
  const Datatype* type;
};

// Where the access starts.
enum class Where {
  kExplicitOffset,   // read_at, write_at, ...: `offset` in etypes, the file pointer stays
  kIndividualPointer, // read, write, ...: at the file pointer, which moves past the data
  kFromPointer        // at `offset` (etypes), where a file pointer (the shared one, or the individual
                      // one of a nonblocking call) was when the call began; the pointer has been
                      // moved already; allowed on MPI_MODE_SEQUENTIAL files
};

// Whether every process of the file calls (the _all forms and *_all_begin).
enum class Coordination { kIndependent, kCollective };

// One data access: checks that the file allows it (MPI_ERR_ACCESS for a
// read of a write-only file, MPI_ERR_READ_ONLY for a write of a read-only
// one, MPI_ERR_UNSUPPORTED_OPERATION for an explicit offset on a
// MPI_MODE_SEQUENTIAL file, MPI_ERR_TYPE for data that is not a whole
// number of etypes), moves the data and fills *status with the bytes moved
// (MPI_Get_count). A read that reaches the end of the file stops there and
// succeeds with the shorter count. A collective access whose arguments are
// wrong on some process fails on every process; `argument_error` is what
// the API found wrong with this process's (it then takes part with no data,
// so that the others return an error instead of waiting for it).
Err access(File& f, Direction direction, Where where, MPI_Offset offset, const Buffer& buffer, MPI_Status* status,
           Coordination how = Coordination::kIndependent, Err argument_error = {});

// access()'s checks alone, for a call that does the access later (the
// nonblocking ones, io/worker.h), so that the call itself reports them.
Err check_access(const File& f, Direction direction, Where where, MPI_Offset offset, const Buffer& buffer);

// The staging buffer's size: the most that one access holds in memory
// besides the user's buffer.
constexpr uint64_t kStagingBytes = 4u << 20;

}  // namespace ferry::io
