// The view and the individual file pointer of an open file (MPI-3.1 §13.3,
// §13.4.3); the mapping itself is io/view.h's.
#include <strings.h>

#include <cctype>

#include "io/agreement.h"
#include "io/nonblocking_collective.h"
#include "io/file.h"
#include "io/shared_pointer.h"
#include "io/worker.h"

namespace ferry::io {
namespace {

// Predefined names are stored in lower case (get_view reports them so);
// registered ones as they were registered.
std::string lowercase(const char* text) {
  std::string s(text);
  const datarep::Representation* rep = datarep::find(text);
  if (rep != nullptr && rep->kind == datarep::Representation::Kind::kUser) return s;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Err set_view(File& f, MPI_Offset disp, const Datatype* etype, const Datatype* filetype, const char* datarep,
             const Info* hints, Err argument_error) {
  worker::drain(f);  // MPI requires it (§13.3); never leave the worker an old view
  nonblocking_collective::wait_for_started(f);  // nor a nonblocking collective
  Err checked = argument_error.ok() ? check_view(disp, *etype, *filetype, datarep, f.amode) : std::move(argument_error);
  int64_t etype_size = etype != nullptr ? static_cast<int64_t>(etype->size) : 0;
  const int64_t current = disp == MPI_DISPLACEMENT_CURRENT ? 1 : 0;
  if (Err e = agree(f.comm, std::move(checked),
                    {{"etype size", etype_size},
                     {"datarep", datarep::id_of(datarep)},
                     {"disp is MPI_DISPLACEMENT_CURRENT", current}}))
    return e;
  // The new view starts where the shared pointer is (§13.3).
  if (current) {
    if (Err e = shared_pointer::current_byte_offset(f, &disp)) return e;
  }
  shared_pointer::view_changed(f);  // back to 0 too (§13.3)
  f.view.set(disp, etype, filetype, lowercase(datarep));
  std::lock_guard<std::mutex> hold(f.pointer_mutex);
  f.position = 0;
  apply_hints(f.hints, hints, f.tuning, f.path);
  return {};
}

Err seek(File& f, MPI_Offset offset, int whence) {
  if (f.sequential())
    return fail(MPI_ERR_UNSUPPORTED_OPERATION, "'%s' was opened with MPI_MODE_SEQUENTIAL: it cannot seek",
                f.path.c_str());
  std::lock_guard<std::mutex> hold(f.pointer_mutex);
  MPI_Offset from;
  switch (whence) {
    case MPI_SEEK_SET: from = 0; break;
    case MPI_SEEK_CUR: from = f.position; break;
    case MPI_SEEK_END: {
      MPI_Offset size = 0;
      if (Err e = get_size(f, &size)) return e;
      // The end of the file in etypes of the view; a partial etype at the
      // end counts as one, so that writing there appends.
      uint64_t bytes = f.view.position_of_offset(static_cast<uint64_t>(size));
      uint64_t etype_size = f.view.etype().size;
      from = static_cast<MPI_Offset>((bytes + etype_size - 1) / etype_size);
      break;
    }
    default:
      return fail(MPI_ERR_ARG, "invalid whence %d (MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END)", whence);
  }
  MPI_Offset to = from + offset;
  if (to < 0)
    return fail(MPI_ERR_ARG, "offset %lld would put the file pointer before the start of the view (at %lld)",
                static_cast<long long>(offset), static_cast<long long>(to));
  f.position = to;
  return {};
}

Err byte_offset(const File& f, MPI_Offset offset, MPI_Offset* disp) {
  if (offset < 0) return fail(MPI_ERR_ARG, "invalid offset %lld (must be >= 0)", static_cast<long long>(offset));
  if (f.view.filetype().size == 0) {
    *disp = f.view.disp();
    return {};
  }
  uint64_t position = static_cast<uint64_t>(offset) * f.view.etype().size;
  *disp = static_cast<MPI_Offset>(f.view.file_offset(position));
  return {};
}

}  // namespace ferry::io
