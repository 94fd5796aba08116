// Sessions (MPI-4.0 §11.3): a handle to the runtime that a library can take
// without MPI_Init, with its own error handler and thread level, and the
// process sets (psets) it can build groups from.
//
// Each open session holds the runtime (runtime/runtime.h); communicators made
// from its groups (MPI_Comm_create_from_group) are ordinary communicators.
//
// Psets, in the order MPI_Session_get_nth_pset lists them:
//   mpi://WORLD               every process of the job (MPI-4.0 §11.3.2)
//   mpi://SELF                this process alone
//   ferry://host/<hostname>   the processes of the job on this process's host
//                             (each process lists only its own host's)
// Names are compared without regard to case, as MPICH compares them.
#pragma once

#include <string>
#include <vector>

#include "base/error.h"
#include "base/group.h"
#include "base/info.h"
#include "mpi.h"

namespace ferry::sessions {

struct Session {
  MPI_Session handle = MPI_SESSION_NULL;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;  // read and set through base/errhandler.h
  int thread_level = MPI_THREAD_SINGLE;               // provided
  Info info;                                          // what MPI_Session_get_info returns
};

// MPI_Session_init: starts the runtime where nothing holds it yet. `info`
// may ask for a thread level with the key "thread_level" (MPI-4.0 §11.3.1,
// values "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE").
Err init(const Info& info, MPI_Errhandler errhandler, Session** out);
// MPI_Session_finalize: frees the session and drops its hold.
Err finalize(Session* s);
// The session behind a handle, or nullptr.
Session* find(MPI_Session handle);

// The psets this process sees, in order.
std::vector<std::string> pset_names();
// A pset's members (world ranks, in order), or MPI_ERR_ARG naming it.
Err pset_members(const std::string& name, groups::Members* out);
// MPI_Session_get_pset_info: "mpi_size" (MPI-4.0 §11.3.2).
Err pset_info(const std::string& name, Info* out);

// "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE", or -1.
int thread_level_of(const std::string& value);
const char* thread_level_name(int level);

}  // namespace ferry::sessions
