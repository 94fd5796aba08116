#include "base/errhandler.h"

#include <atomic>
#include <mutex>

#include "base/error.h"
#include "base/handles.h"
#include "progress/progress.h"
#include "base/process.h"

namespace ferry::errhandlers {
namespace {

struct UserHandler {
  Kind kind;
  MPI_Comm_errhandler_function* comm_fn;  // kComm
  MPI_File_errhandler_function* file_fn;  // kFile
  MPI_Session_errhandler_function* session_fn;  // kSession
  // Communicators hold references too, and are made and freed from any
  // thread (MPI_THREAD_MULTIPLE).
  std::atomic<int> references;
  MPI_Win_errhandler_function* win_fn = nullptr;  // kWin
};
handle::Table<UserHandler> user_handlers;
// Guards every object's handler field (get, set, invoke).
std::mutex field_mutex;

UserHandler* find_user(MPI_Errhandler h) {
  if (!handle::is_dynamic(h, handle::Object::kErrhandler)) return nullptr;
  return user_handlers.get(handle::index_of(h));
}

bool predefined(MPI_Errhandler h) {
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

}  // namespace

bool is_valid(MPI_Errhandler h) { return predefined(h) || find_user(h) != nullptr; }

bool fits(MPI_Errhandler h, Kind kind) {
  if (predefined(h)) return true;
  UserHandler* u = find_user(h);
  return u != nullptr && u->kind == kind;
}

MPI_Errhandler create(MPI_Comm_errhandler_function* fn) {
  uint32_t index = user_handlers.add(new UserHandler{Kind::kComm, fn, nullptr, nullptr, 1});
  return handle::make_dynamic(handle::Object::kErrhandler, index);
}

MPI_Errhandler create_for_files(MPI_File_errhandler_function* fn) {
  uint32_t index = user_handlers.add(new UserHandler{Kind::kFile, nullptr, fn, nullptr, 1});
  return handle::make_dynamic(handle::Object::kErrhandler, index);
}

MPI_Errhandler create_for_sessions(MPI_Session_errhandler_function* fn) {
  uint32_t index = user_handlers.add(new UserHandler{Kind::kSession, nullptr, nullptr, fn, 1});
  return handle::make_dynamic(handle::Object::kErrhandler, index);
}

MPI_Errhandler create_for_windows(MPI_Win_errhandler_function* fn) {
  auto* u = new UserHandler{Kind::kWin, nullptr, nullptr, nullptr, 1};
  u->win_fn = fn;
  uint32_t index = user_handlers.add(u);
  return handle::make_dynamic(handle::Object::kErrhandler, index);
}

void retain(MPI_Errhandler h) {
  if (UserHandler* u = find_user(h)) ++u->references;
}

void release(MPI_Errhandler h) {
  UserHandler* u = find_user(h);
  if (u != nullptr && --u->references == 0) delete user_handlers.remove(handle::index_of(h));
}

MPI_Errhandler get(const MPI_Errhandler& field) {
  std::lock_guard<std::mutex> lock(field_mutex);
  retain(field);
  return field;
}

void set(MPI_Errhandler& field, MPI_Errhandler h) {
  retain(h);
  MPI_Errhandler old;
  {
    std::lock_guard<std::mutex> lock(field_mutex);
    old = field;
    field = h;
  }
  release(old);
}

namespace {

// Runs handler `h` (with the reference get() took, which keeps it alive
// while it runs, even if another thread replaces it meanwhile) for an
// object whose handle `call_user` passes to a user's callback.
template <typename CallUser>
int apply(MPI_Errhandler h, int code, const std::string& message, CallUser call_user) {
  if (h == MPI_ERRORS_RETURN) return code;
  if (UserHandler* u = find_user(h)) {
    int c = code;
    call_user(*u, &c);
    release(h);
    return code;
  }
  int mpi_class = error_code::class_of(code);
  // The job's exit status is the class; a user-defined class's value (above
  // MPI_ERR_LASTCODE) would not survive the exit status's 8 bits.
  int status = mpi_class <= MPI_ERR_LASTCODE ? mpi_class : MPI_ERR_OTHER;
  // Both end this job: Ferry has no way to end only part of one, and jobs
  // connected to it (MPI_Comm_spawn, _connect) learn of it from PMIx.
  const char* how = h == MPI_ERRORS_ABORT ? " (MPI_ERRORS_ABORT)" : "";
  process::abort_job(status, message + " [" + error_class_name(mpi_class) + "]" + how);
}

}  // namespace

int invoke(Communicator* comm, int code, const std::string& message) {
  Communicator* target = comm != nullptr ? comm : &communicators::world();
  MPI_Comm handle = target->handle;
  return apply(get(*target), code, message, [&](UserHandler& u, int* c) {
    if (u.comm_fn != nullptr) u.comm_fn(&handle, c);
  });
}

int invoke_file(const MPI_Errhandler& field, MPI_File file, int code, const std::string& message) {
  return apply(get(field), code, message, [&](UserHandler& u, int* c) {
    if (u.file_fn != nullptr) u.file_fn(&file, c);
  });
}

int invoke_session(const MPI_Errhandler& field, MPI_Session session, int code, const std::string& message) {
  return apply(get(field), code, message, [&](UserHandler& u, int* c) {
    if (u.session_fn != nullptr) u.session_fn(&session, c);
  });
}

int invoke_window(const MPI_Errhandler& field, MPI_Win win, int code, const std::string& message) {
  return apply(get(field), code, message, [&](UserHandler& u, int* c) {
    if (u.win_fn != nullptr) u.win_fn(&win, c);
  });
}

int invoke_handler(MPI_Errhandler h, int code, const std::string& message) {
  retain(h);  // apply() releases the reference a user's handler runs with
  MPI_Comm no_comm = MPI_COMM_NULL;
  MPI_Session no_session = MPI_SESSION_NULL;
  return apply(h, code, message, [&](UserHandler& u, int* c) {
    if (u.comm_fn != nullptr) u.comm_fn(&no_comm, c);
    if (u.session_fn != nullptr) u.session_fn(&no_session, c);
  });
}

}  // namespace ferry::errhandlers
