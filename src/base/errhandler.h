// Error handlers (MPI-3.1 §8.3): what happens when a call on a communicator
// fails. MPI_ERRORS_ARE_FATAL (the default) prints the error and ends the
// whole job; MPI_ERRORS_RETURN returns the code; a user's handler is called
// and then the code is returned.
#pragma once

#include <string>

#include "base/communicator.h"
#include "mpi.h"

namespace ferry::errhandlers {

bool is_valid(MPI_Errhandler h);
MPI_Errhandler create(MPI_Comm_errhandler_function* fn);
// Releases a user's reference; predefined handlers are never destroyed.
void release(MPI_Errhandler h);
void retain(MPI_Errhandler h);

// A communicator's handler, with a reference for the caller; and replacing
// it. One thread may set a communicator's handler while others read it
// (every failing call does), so its field is only read and written here,
// under a lock of its own.
MPI_Errhandler get(const Communicator& c);
void set(Communicator& c, MPI_Errhandler h);

// Applies `comm`'s handler (MPI_COMM_WORLD's when comm is nullptr) to an
// error `code` whose full text is `message`; returns the code for the call
// to return.
int invoke(Communicator* comm, int code, const std::string& message);

}  // namespace ferry::errhandlers
