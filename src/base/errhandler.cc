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
  MPI_Comm_errhandler_function* fn;
  // Communicators hold references too, and are made and freed from any
  // thread (MPI_THREAD_MULTIPLE).
  std::atomic<int> references;
};
handle::Table<UserHandler> user_handlers;
// Guards every communicator's `errhandler` field (get, set, invoke).
std::mutex field_mutex;

UserHandler* find_user(MPI_Errhandler h) {
  if (!handle::is_dynamic(h, handle::Object::kErrhandler)) return nullptr;
  return user_handlers.get(handle::index_of(h));
}

}  // namespace

bool is_valid(MPI_Errhandler h) {
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || find_user(h) != nullptr;
}

MPI_Errhandler create(MPI_Comm_errhandler_function* fn) {
  uint32_t index = user_handlers.add(new UserHandler{fn, 1});
  return handle::make_dynamic(handle::Object::kErrhandler, index);
}

void retain(MPI_Errhandler h) {
  if (UserHandler* u = find_user(h)) ++u->references;
}

void release(MPI_Errhandler h) {
  UserHandler* u = find_user(h);
  if (u != nullptr && --u->references == 0) delete user_handlers.remove(handle::index_of(h));
}

MPI_Errhandler get(const Communicator& c) {
  std::lock_guard<std::mutex> lock(field_mutex);
  retain(c.errhandler);
  return c.errhandler;
}

void set(Communicator& c, MPI_Errhandler h) {
  retain(h);
  MPI_Errhandler old;
  {
    std::lock_guard<std::mutex> lock(field_mutex);
    old = c.errhandler;
    c.errhandler = h;
  }
  release(old);
}

int invoke(Communicator* comm, int code, const std::string& message) {
  Communicator* target = comm != nullptr ? comm : &communicators::world();
  MPI_Errhandler h = get(*target);
  if (h == MPI_ERRORS_RETURN) return code;
  if (UserHandler* u = find_user(h)) {
    MPI_Comm handle = target->handle;
    int c = code;
    // The reference taken by get() keeps the handler alive while it runs,
    // even if another thread replaces it meanwhile.
    u->fn(&handle, &c);
    release(h);
    return code;
  }
  int mpi_class = error_code::class_of(code);
  // The job's exit status is the class; a user-defined class's value (above
  // MPI_ERR_LASTCODE) would not survive the exit status's 8 bits.
  int status = mpi_class <= MPI_ERR_LASTCODE ? mpi_class : MPI_ERR_OTHER;
  process::abort_job(status, message + " [" + error_class_name(mpi_class) + "]");
}

}  // namespace ferry::errhandlers
