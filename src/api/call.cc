#include "api/api.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "base/errhandler.h"
#include "io/file.h"
#include "rma/window.h"
#include "runtime/runtime.h"
#include "base/limits.h"

namespace ferry::api {

bool Call::initialized_or_failed() {
  if (!ok()) return false;
  // The world model or a session (MPI-4.0 §11.4) holds the runtime.
  if (runtime::active()) return true;
  // No error handler exists yet (or any more): say so and stop, as MPICH does.
  std::fprintf(stderr, "ferry: %s called %s\n", name_,
               runtime::finalized() ? "after MPI_Finalize (only between MPI_Init and MPI_Finalize)"
                                    : "before MPI_Init or MPI_Session_init");
  std::fflush(stderr);
  runtime::abort_job(MPI_ERR_OTHER, std::string(name_) + ": MPI is not initialized");
}

Communicator* Call::comm_or_failed(MPI_Comm handle) {
  if (!initialized()) return nullptr;
  Communicator* c = communicators::find(handle);
  if (c == nullptr) {
    if (handle == MPI_COMM_NULL) fail(MPI_ERR_COMM, "communicator is MPI_COMM_NULL");
    else fail(MPI_ERR_COMM, "invalid communicator handle 0x%x", static_cast<unsigned>(handle));
    return nullptr;
  }
  comm_ = c;
  return c;
}

Communicator* Call::intracomm(MPI_Comm handle) {
  Communicator* c = comm(handle);
  if (c != nullptr && c->inter) {
    fail(MPI_ERR_COMM, "the communicator is an intercommunicator; this call is defined on intracommunicators "
                       "only");
    return nullptr;
  }
  return c;
}

const Datatype* Call::datatype_or_failed(MPI_Datatype handle, const char* argument) {
  if (!ok()) return nullptr;
  if (handle == MPI_DATATYPE_NULL) fail(MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", argument);
  else fail(MPI_ERR_TYPE, "invalid %s handle 0x%x", argument, static_cast<unsigned>(handle));
  return nullptr;
}

const Datatype* Call::message_datatype_or_failed(MPI_Datatype handle, MPI_Count count) {
  if (count == 0 && handle == MPI_DATATYPE_NULL && ok()) return find_datatype(MPI_BYTE);
  return datatype(handle);
}

bool Call::movable_or_failed(const Datatype* t, const char* argument) {
  if (!ok()) return false;
  if (!t->committed)
    return fail(MPI_ERR_TYPE, "%s %s is not committed (MPI_Type_commit it first)", argument,
                datatype_label(*t).c_str());
  if (!t->supported)
    return fail(MPI_ERR_TYPE, "%s %s is not supported by point-to-point yet", argument, t->name);
  return true;
}

bool Call::count_or_failed(MPI_Count count, const char* argument) {
  if (!ok()) return false;
  if (count < 0) return fail(MPI_ERR_COUNT, "invalid %s %lld (must be >= 0)", argument, static_cast<long long>(count));
  return true;
}

bool Call::bytes(const void* buf, MPI_Count bytes, const char* argument) {
  if (!ok()) return false;
  if (buf == nullptr && bytes > 0)
    return fail(MPI_ERR_BUFFER, "%s is NULL with %lld bytes", argument, static_cast<long long>(bytes));
  return true;
}

namespace {

// Whether `count` elements of `t` at `displacement` bytes from `buf` hold
// data that would start at address 0: the only buffer MPI_BOTTOM cannot
// name, whatever the datatype (MPI-3.1 §4.1.5: addresses and byte
// displacements are relative to MPI_BOTTOM, which is NULL in MPICH's ABI).
// Computed modulo 2^64, as addresses are.
bool data_at_zero(const void* buf, MPI_Aint displacement, MPI_Count count, const Datatype& t) {
  if (count <= 0 || t.size == 0) return false;
  uintptr_t start = reinterpret_cast<uintptr_t>(buf) + static_cast<uintptr_t>(displacement) +
                    static_cast<uintptr_t>(t.true_lb);
  return start == 0;
}

// A large count times the type's size must still be a byte count: an
// overflow would silently move less than the program asked for.
bool too_many_bytes(MPI_Count count, const Datatype& t) {
  return t.size > 0 && count > 0 && static_cast<uint64_t>(count) > INT64_MAX / t.size;
}

}  // namespace

bool Call::buffer_or_failed(const void* buf, MPI_Count count, const Datatype* t, const char* argument) {
  if (!ok()) return false;
  if (data_at_zero(buf, 0, count, *t)) {
    if (buf == nullptr)
      return fail(MPI_ERR_BUFFER, "%s is NULL with count %lld of %s (MPI_BOTTOM needs a datatype of absolute "
                  "addresses)", argument, static_cast<long long>(count), datatype_label(*t).c_str());
    return fail(MPI_ERR_BUFFER, "%s %p with count %lld of %s puts the data at address 0", argument, buf,
                static_cast<long long>(count), datatype_label(*t).c_str());
  }
  if (too_many_bytes(count, *t))
    return fail(MPI_ERR_COUNT, "count %lld of %s is more than 2^63 bytes", static_cast<long long>(count),
                datatype_label(*t).c_str());
  return true;
}

bool Call::block(const void* buf, MPI_Aint displacement, MPI_Count count, const Datatype* t, const char* what,
                 int index) {
  if (!ok()) return false;
  if (data_at_zero(buf, displacement, count, *t))
    return fail(MPI_ERR_BUFFER, "block %d of %sbuf (%scounts[%d] = %lld of %s, %lld bytes from %sbuf %p) would start "
                "at address 0", index, what, what, index, static_cast<long long>(count), datatype_label(*t).c_str(),
                static_cast<long long>(displacement), what, buf);
  if (too_many_bytes(count, *t))
    return fail(MPI_ERR_COUNT, "%scounts[%d] = %lld of %s is more than 2^63 bytes", what, index,
                static_cast<long long>(count), datatype_label(*t).c_str());
  return true;
}

bool Call::rank_or_failed(int rank, const Communicator& c, RankUse use, const char* argument) {
  if (!ok()) return false;
  if (rank >= 0 && rank < c.peer_count()) return true;
  if (rank == MPI_PROC_NULL) return true;
  if (rank == MPI_ANY_SOURCE && use == RankUse::kSource) {
    // MPI-4.0 §7.4.4: with the assertion set, a wildcard receive is
    // erroneous; Ferry says so rather than match it.
    if (c.assert_no_any_source)
      return fail(MPI_ERR_RANK, "%s is MPI_ANY_SOURCE on a communicator that asserts mpi_assert_no_any_source",
                  argument);
    return true;
  }
  if (c.inter)
    return fail(MPI_ERR_RANK, "invalid %s %d (the intercommunicator's remote group has %d ranks)", argument, rank,
                c.remote_size);
  return fail(MPI_ERR_RANK, "invalid %s %d (communicator size %d)", argument, rank, c.size);
}

bool Call::tag_or_failed(int tag, bool allow_any) {
  if (!ok()) return false;
  if (tag >= 0 && tag <= kTagUpperBound) return true;
  if (tag == MPI_ANY_TAG && allow_any) {
    if (comm_ != nullptr && comm_->assert_no_any_tag)
      return fail(MPI_ERR_TAG, "tag is MPI_ANY_TAG on a communicator that asserts mpi_assert_no_any_tag");
    return true;
  }
  return fail(MPI_ERR_TAG, "invalid tag %d (tags are 0 to %d%s)", tag, kTagUpperBound,
              allow_any ? ", or MPI_ANY_TAG" : "");
}

io::File* Call::file(MPI_File handle) {
  file_call_ = true;
  if (!initialized()) return nullptr;
  io::File* f = io::files::find(handle);
  if (f == nullptr) {
    if (handle == MPI_FILE_NULL) fail(MPI_ERR_FILE, "file is MPI_FILE_NULL");
    else fail(MPI_ERR_FILE, "invalid file handle %p (not an open file)", static_cast<void*>(handle));
    return nullptr;
  }
  file_ = f;
  return f;
}

rma::Window* Call::win(MPI_Win handle) {
  if (!initialized()) return nullptr;
  rma::Window* w = rma::windows::find(handle);
  if (w == nullptr) {
    if (handle == MPI_WIN_NULL) fail(MPI_ERR_WIN, "win is MPI_WIN_NULL");
    else fail(MPI_ERR_WIN, "invalid window handle 0x%x", static_cast<unsigned>(handle));
    return nullptr;
  }
  win_ = w;
  return w;
}

bool Call::null_or_failed(const char* argument) {
  if (!ok()) return false;
  return fail(MPI_ERR_ARG, "%s is NULL", argument);
}

bool Call::fail(int mpi_class, const char* fmt, ...) {
  if (!ok()) return false;
  char text[400];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  error_ = Err(mpi_class, text);
  return false;
}

bool Call::fail(Err e) {
  if (ok()) error_ = std::move(e);
  return false;
}

int Call::raise() {
  if (ok()) return MPI_SUCCESS;
  std::string message = std::string(name_) + ": " + error_.message();
  int code = error_code::make(error_.mpi_class(), message);
  if (file_call_) return io::files::invoke_errhandler(file_, code, message);
  if (win_ != nullptr) return rma::windows::invoke_errhandler(win_, code, message);
  // MPI-4.0 §10: info calls work before MPI_Init; with nothing started
  // there is no handler and no job to abort, so the code is returned.
  if (!runtime::active()) {
    std::fprintf(stderr, "ferry: %s\n", message.c_str());
    return code;
  }
  return errhandlers::invoke(comm_, code, message);
}

int Call::result_failed(Err e) {
  error_ = std::move(e);
  return raise();
}

int Call::raise_code_failed(int code) {
  std::string message = std::string(name_) + ": " + error_code::text(code);
  int with_call = error_code::make(error_code::class_of(code), message);
  if (file_call_) return io::files::invoke_errhandler(file_, with_call, message);
  if (win_ != nullptr) return rma::windows::invoke_errhandler(win_, with_call, message);
  return errhandlers::invoke(comm_, with_call, message);
}

const Info* checked_hints(Call& call, MPI_Info handle) {
  static const Info none;
  if (!call.ok()) return nullptr;
  if (handle == MPI_INFO_NULL) return &none;
  const Info* info = find_info(handle);
  if (info == nullptr) call.fail(MPI_ERR_INFO, "invalid info handle 0x%x", static_cast<unsigned>(handle));
  return info;
}

int not_implemented(const char* call, const char* reason) {
  Call c(call);
  if (!c.initialized()) return MPI_ERR_OTHER;
  std::string message = std::string(call) + (reason != nullptr ? std::string(": ") + reason : " is not implemented yet");
  return errhandlers::invoke(nullptr, error_code::make(MPI_ERR_OTHER, message), message);
}

}  // namespace ferry::api
