// File views and the individual file pointer (MPI-3.1 §13.3, §13.4.3).
#include <cstdio>
#include <cstring>

#include "api/api.h"
#include "base/type_constructors.h"
#include "io/file.h"

using namespace ferry;

namespace {

// get_view hands out types the caller frees: a derived type as a new
// duplicate, a predefined one as itself (§13.3).
MPI_Datatype handed_out(const Datatype& t) {
  if (t.predefined()) return t.handle;
  const Datatype* copy = nullptr;
  if (datatypes::dup(t, &copy)) return MPI_DATATYPE_NULL;
  datatypes::commit(copy);
  return copy->handle;
}

}  // namespace

extern "C" int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                  const char* datarep, MPI_Info info) {
  api::Call call("MPI_File_set_view");
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  // A bad argument of this process fails the call on every process
  // (io::set_view agrees on it) rather than leaving the others waiting.
  const Datatype* e = call.datatype(etype, "etype");
  const Datatype* t = call.datatype(filetype, "filetype");
  const Info* hints = api::checked_hints(call, info);
  call.not_null(datarep, "datarep");
  bool ok = call.ok();
  return call.result(io::set_view(*f, disp, ok ? e : nullptr, ok ? t : nullptr, ok ? datarep : nullptr,
                                  ok ? hints : nullptr, call.take_error()));
}
FERRY_ENTRY(File_set_view)

extern "C" int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                                  char* datarep) {
  api::Call call("MPI_File_get_view");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(disp, "disp") || !call.not_null(etype, "etype") ||
      !call.not_null(filetype, "filetype") || !call.not_null(datarep, "datarep"))
    return call.raise();
  *disp = f->view.disp();
  *etype = handed_out(f->view.given_etype());
  *filetype = handed_out(f->view.given_filetype());
  std::snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->view.datarep().c_str());
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_view)

extern "C" int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  api::Call call("MPI_File_get_type_extent");
  io::File* f = call.file(fh);
  const Datatype* t = call.datatype(datatype);
  if (f == nullptr || t == nullptr || !call.not_null(extent, "extent")) return call.raise();
  *extent = io::file_extent(*t, f->view.datarep());
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_type_extent)

// MPI-4.0 §14.6.5: the same extent as an MPI_Count.
extern "C" int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  api::Call call("MPI_File_get_type_extent_c");
  io::File* f = call.file(fh);
  const Datatype* t = call.datatype(datatype);
  if (f == nullptr || t == nullptr || !call.not_null(extent, "extent")) return call.raise();
  *extent = io::file_extent(*t, f->view.datarep());
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_type_extent_c)

extern "C" int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  api::Call call("MPI_File_get_byte_offset");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(disp, "disp")) return call.raise();
  return call.result(io::byte_offset(*f, offset, disp));
}
FERRY_ENTRY(File_get_byte_offset)

extern "C" int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  api::Call call("MPI_File_seek");
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  return call.result(io::seek(*f, offset, whence));
}
FERRY_ENTRY(File_seek)

extern "C" int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  api::Call call("MPI_File_get_position");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(offset, "offset")) return call.raise();
  std::lock_guard<std::mutex> hold(f->pointer_mutex);
  *offset = f->position;
  return MPI_SUCCESS;
}
FERRY_ENTRY(File_get_position)

// MPI-3.1 §13.5.3. Not collective; a process registers a name once. An
// I/O call without a file: MPI_FILE_NULL's handler applies (§13.7). The
// large-count form (MPI-4.0) differs only in its conversion functions' count.
namespace {
template <typename Conversion>
int register_datarep(const char* name, const char* datarep, Conversion* read, Conversion* write,
                     MPI_Datarep_extent_function* extent, void* extra_state) {
  api::Call call(name);
  call.use_file_errhandlers();
  if (!call.not_null(datarep, "datarep")) return call.raise();
  if (extent == nullptr)
    return call.result(fail(MPI_ERR_ARG, "dtype_file_extent_fn is NULL (the file extent of each type is needed)"));
  return call.result(io::datarep::register_representation(datarep, read, write, extent, extra_state));
}
}  // namespace

extern "C" int PMPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                                     MPI_Datarep_conversion_function* write_conversion_fn,
                                     MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return register_datarep("MPI_Register_datarep", datarep, read_conversion_fn, write_conversion_fn,
                          dtype_file_extent_fn, extra_state);
}
FERRY_ENTRY(Register_datarep)

extern "C" int PMPI_Register_datarep_c(const char* datarep, MPI_Datarep_conversion_function_c* read_conversion_fn,
                                       MPI_Datarep_conversion_function_c* write_conversion_fn,
                                       MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  return register_datarep("MPI_Register_datarep_c", datarep, read_conversion_fn, write_conversion_fn,
                          dtype_file_extent_fn, extra_state);
}
FERRY_ENTRY(Register_datarep_c)
