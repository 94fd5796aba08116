// Error handlers (MPI-3.1 §8.3): what happens when a call on a communicator,
// a file or a session fails. MPI_ERRORS_ARE_FATAL (communicators' default)
// prints the error and ends the whole job; MPI_ERRORS_ABORT (MPI-4.0 §9.3)
// ends only the processes of the object's job, as MPI_Abort on it would
// (Ferry's MPI_Abort ends the caller's job, not the jobs it is connected
// to); MPI_ERRORS_RETURN (files' default, §13.7) returns the code; a
// user's handler is called and then the code is returned.
//
// One machinery for both: an object keeps its handler in an MPI_Errhandler
// field, read and replaced only through get() and set() here; a user's
// handler remembers which kind of object it was made for, because the
// callback's first argument differs (an MPI_Comm*, MPI_File*, MPI_Session*
// or MPI_Win*).
#pragma once

#include <string>

#include "base/communicator.h"
#include "mpi.h"

namespace ferry::errhandlers {

enum class Kind { kComm, kFile, kSession, kWin };

bool is_valid(MPI_Errhandler h);
// Whether `h` may be attached to an object of `kind`: the predefined
// handlers fit any, a user's only the kind it was created for.
bool fits(MPI_Errhandler h, Kind kind);
MPI_Errhandler create(MPI_Comm_errhandler_function* fn);
MPI_Errhandler create_for_files(MPI_File_errhandler_function* fn);
MPI_Errhandler create_for_sessions(MPI_Session_errhandler_function* fn);
MPI_Errhandler create_for_windows(MPI_Win_errhandler_function* fn);
// Releases a user's reference; predefined handlers are never destroyed.
void release(MPI_Errhandler h);
void retain(MPI_Errhandler h);

// An object's handler, with a reference for the caller; and replacing it.
// One thread may set an object's handler while others read it (every
// failing call does), so the field is only read and written here, under a
// lock of its own.
MPI_Errhandler get(const MPI_Errhandler& field);
void set(MPI_Errhandler& field, MPI_Errhandler h);
inline MPI_Errhandler get(const Communicator& c) { return get(c.errhandler); }
inline void set(Communicator& c, MPI_Errhandler h) { set(c.errhandler, h); }

// Applies `comm`'s handler (MPI_COMM_WORLD's when comm is nullptr) to an
// error `code` whose full text is `message`; returns the code for the call
// to return.
int invoke(Communicator* comm, int code, const std::string& message);
// The same for a file whose handler is in `field` (MPI_FILE_NULL's for
// calls that have no file yet); `file` is what the user's callback gets.
int invoke_file(const MPI_Errhandler& field, MPI_File file, int code, const std::string& message);
// The same for a session (MPI-4.0 §9.3).
int invoke_session(const MPI_Errhandler& field, MPI_Session session, int code, const std::string& message);
// The same for a window (MPI-4.0 §12.6).
int invoke_window(const MPI_Errhandler& field, MPI_Win win, int code, const std::string& message);
// Applies handler `h` itself, for calls whose new object does not exist
// yet (MPI_Comm_create_from_group raises on the handler it was given);
// a user's handler gets MPI_COMM_NULL (MPI_SESSION_NULL for a session's).
int invoke_handler(MPI_Errhandler h, int code, const std::string& message);

}  // namespace ferry::errhandlers
