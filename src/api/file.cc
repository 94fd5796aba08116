// Files as a whole (MPI-3.1 §13.2): open, close, delete, size, hints,
// atomicity, Fortran handles, and the file error handlers (§13.7, §8.3.3).
// Errors go to the file's error handler, or to MPI_FILE_NULL's where there
// is no file (yet): MPI_ERRORS_RETURN unless the program changed it.
#include <cstring>

#include "api/api.h"
#include "base/errhandler.h"
#include "base/group.h"
#include "base/info.h"
#include "io/file.h"
#include "io/nonblocking_collective.h"

using namespace ferry;

namespace {

bool checked_filename(api::Call& call, const char* filename) {
  if (!call.not_null(filename, "filename")) return false;
  if (filename[0] == '\0') return call.fail(MPI_ERR_BAD_FILE, "filename is empty");
  return true;
}

}  // namespace

extern "C" int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  api::Call call("MPI_File_open");
  call.use_file_errhandlers();
  Communicator* c = call.intracomm(comm);
  if (c == nullptr || !call.not_null(fh, "fh")) return call.raise();
  // With the communicator known, a bad argument of this process fails the
  // open on every process (io::open agrees on it) rather than leaving the
  // others waiting.
  const Info* hints = api::checked_hints(call, info);
  checked_filename(call, filename);
  io::File* f = nullptr;
  Err e = io::open(c, call.ok() ? filename : nullptr, amode, hints, call.take_error(), &f);
  *fh = f != nullptr ? f->handle : MPI_FILE_NULL;
  return call.result(std::move(e));
}
FERRY_ENTRY(File_open)

extern "C" int PMPI_File_close(MPI_File* fh) {
  api::Call call("MPI_File_close");
  call.use_file_errhandlers();
  if (!call.not_null(fh, "fh")) return call.raise();
  io::File* f = call.file(*fh);
  if (f == nullptr) return call.raise();
  *fh = MPI_FILE_NULL;
  Err e = io::close(f);
  // The file is gone, also when closing failed: the error goes to
  // MPI_FILE_NULL's handler.
  call.forget_file();
  return call.result(std::move(e));
}
FERRY_ENTRY(File_close)

extern "C" int PMPI_File_delete(const char* filename, MPI_Info info) {
  api::Call call("MPI_File_delete");
  call.use_file_errhandlers();
  if (!call.initialized()) return call.raise();
  if (api::checked_hints(call, info) == nullptr || !checked_filename(call, filename)) return call.raise();
  return call.result(io::delete_file(filename));
}
FERRY_ENTRY(File_delete)

extern "C" int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  api::Call call("MPI_File_set_size");
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  return call.result(io::set_size(*f, size));
}
FERRY_ENTRY(File_set_size)

extern "C" int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  api::Call call("MPI_File_preallocate");
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  return call.result(io::preallocate(*f, size));
}
FERRY_ENTRY(File_preallocate)

extern "C" int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  api::Call call("MPI_File_get_size");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(size, "size")) return call.raise();
  return call.result(io::get_size(*f, size));
}
FERRY_ENTRY(File_get_size)

extern "C" int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  api::Call call("MPI_File_get_group");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(group, "group")) return call.raise();
  // A new reference, which the caller frees (§13.2.6).
  groups::retain(f->comm->group);
  *group = f->comm->group->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_group)

extern "C" int PMPI_File_get_amode(MPI_File fh, int* amode) {
  api::Call call("MPI_File_get_amode");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(amode, "amode")) return call.raise();
  *amode = f->amode;
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_amode)

extern "C" int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  api::Call call("MPI_File_set_info");
  io::File* f = call.file(fh);
  const Info* hints = api::checked_hints(call, info);
  if (f == nullptr || hints == nullptr) return call.raise();
  // Collective (§13.2.8): the accesses started before it keep the hints
  // they were started with.
  io::nonblocking_collective::wait_for_started(*f);
  // Parsed now, so that data accesses read numbers (io/hints.h).
  io::apply_hints(f->hints, hints, f->tuning, f->path);
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_set_info)

extern "C" int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  api::Call call("MPI_File_get_info");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(info_used, "info_used")) return call.raise();
  *info_used = infos::create(f->hints);  // a new object the caller frees
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_info)

extern "C" int PMPI_File_sync(MPI_File fh) {
  api::Call call("MPI_File_sync");
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  return call.result(io::sync(*f));
}
FERRY_ENTRY(File_sync)

extern "C" int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  api::Call call("MPI_File_set_atomicity");
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  return call.result(io::set_atomicity(*f, flag != 0));
}
FERRY_ENTRY(File_set_atomicity)

extern "C" int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  api::Call call("MPI_File_get_atomicity");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(flag, "flag")) return call.raise();
  *flag = f->atomic ? 1 : 0;
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_atomicity)

// MPI_File is a pointer in MPICH's ABI, but Ferry's hold a 32-bit handle
// (io/file.h), which is the Fortran integer too.
extern "C" MPI_Fint PMPI_File_c2f(MPI_File fh) { return io::files::to_fortran(fh); }
FERRY_ENTRY(File_c2f)
extern "C" MPI_File PMPI_File_f2c(MPI_Fint fh) { return io::files::from_fortran(fh); }
FERRY_ENTRY(File_f2c)

// ---- Error handlers (§13.7) --------------------------------------------------

namespace {

// The handler field a file call refers to: the file's, or MPI_FILE_NULL's.
MPI_Errhandler* handler_field(api::Call& call, MPI_File fh) {
  if (fh == MPI_FILE_NULL) {
    call.use_file_errhandlers();
    if (!call.initialized()) return nullptr;
    return &io::files::null_file_errhandler();
  }
  io::File* f = call.file(fh);
  return f != nullptr ? &f->errhandler : nullptr;
}

}  // namespace

extern "C" int PMPI_File_create_errhandler(MPI_File_errhandler_function* fn, MPI_Errhandler* errhandler) {
  api::Call call("MPI_File_create_errhandler");
  call.use_file_errhandlers();
  if (!call.initialized() || !call.not_null(reinterpret_cast<void*>(fn), "file_errhandler_fn") ||
      !call.not_null(errhandler, "errhandler"))
    return call.raise();
  *errhandler = errhandlers::create_for_files(fn);
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_create_errhandler)

extern "C" int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler) {
  api::Call call("MPI_File_set_errhandler");
  MPI_Errhandler* field = handler_field(call, fh);
  if (field == nullptr) return call.raise();
  if (!errhandlers::is_valid(errhandler)) {
    call.fail(MPI_ERR_ARG, "invalid error handler 0x%x", static_cast<unsigned>(errhandler));
    return call.raise();
  }
  if (!errhandlers::fits(errhandler, errhandlers::Kind::kFile)) {
    call.fail(MPI_ERR_ARG, "error handler 0x%x was made for communicators, not files (use "
                           "MPI_File_create_errhandler)", static_cast<unsigned>(errhandler));
    return call.raise();
  }
  errhandlers::set(*field, errhandler);
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_set_errhandler)

extern "C" int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler* errhandler) {
  api::Call call("MPI_File_get_errhandler");
  MPI_Errhandler* field = handler_field(call, fh);
  if (field == nullptr || !call.not_null(errhandler, "errhandler")) return call.raise();
  *errhandler = errhandlers::get(*field);  // a reference of the caller's own
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_errhandler)

extern "C" int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  api::Call call("MPI_File_call_errhandler");
  MPI_Errhandler* field = handler_field(call, fh);
  if (field == nullptr) return call.raise();
  std::string message = "MPI_File_call_errhandler: " + error_code::text(errorcode);
  errhandlers::invoke_file(*field, fh, errorcode, message);
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_call_errhandler)
