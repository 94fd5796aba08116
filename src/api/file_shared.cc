// Data access through the shared file pointer (MPI-3.1 §13.4.4): the
// independent forms (read_shared, write_shared, their nonblocking forms),
// the collective ordered forms and their split forms, seek_shared and
// get_position_shared. The pointer itself is io/shared_pointer.h's; the
// access, once its place is known, is io::access at that place.
#include "api/api.h"
#include "base/type_pack.h"
#include "io/access.h"
#include "io/completion.h"
#include "io/shared_pointer.h"
#include "io/worker.h"

using namespace ferry;
using io::Direction;

namespace {

enum class Form { kBlocking, kNonblocking, kOrdered, kOrderedBegin };

struct Access {
  const char* name;
  Direction direction;
  Form form;
};

bool collective(Form form) { return form == Form::kOrdered || form == Form::kOrderedBegin; }

// The etypes `count` elements of `t` fill in `f`'s view, or MPI_ERR_TYPE.
Err etypes_of(const io::File& f, const Datatype& t, MPI_Count count, MPI_Offset* etypes) {
  // Both in the file's sizes (MPI-3.1 §13.5).
  uint64_t bytes = f.view.file_bytes(t, static_cast<uint64_t>(count));
  uint64_t etype_size = f.view.etype().size;
  if (bytes % etype_size != 0)
    return fail(MPI_ERR_TYPE, "%lld elements of %s are %llu bytes, not a whole number of etypes (%s, %llu bytes)",
                static_cast<long long>(count), datatype_label(t).c_str(), static_cast<unsigned long long>(bytes),
                datatype_label(f.view.given_etype()).c_str(), static_cast<unsigned long long>(etype_size));
  *etypes = static_cast<MPI_Offset>(bytes / etype_size);
  return {};
}

int shared_access(const Access& a, MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Status* status, MPI_Request* request) {
  api::Call call(a.name);
  if (a.form == Form::kNonblocking && request != nullptr) *request = MPI_REQUEST_NULL;
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  const Datatype* t = call.datatype(datatype);
  if (t != nullptr && call.movable(t) && call.count(count) && call.buffer(buf, count, t) &&
      a.form == Form::kNonblocking)
    call.not_null(request, "request");
  if (!collective(a.form) && !call.ok()) return call.raise();
  if (a.form == Form::kOrderedBegin) {
    if (Err e = io::check_no_split(*f, a.name)) return call.result(std::move(e));
  }

  // Where this process's data goes: one fetch-and-add, or (ordered) its
  // place after the lower ranks' data.
  MPI_Offset etypes = 0;
  io::Buffer b{const_cast<void*>(buf), static_cast<uint64_t>(count), t};
  Err local = call.take_error();
  if (local.ok()) local = etypes_of(*f, *t, count, &etypes);
  MPI_Offset at = 0;
  if (collective(a.form)) {
    if (Err e = io::shared_pointer::ordered_slot(*f, etypes, &at, std::move(local))) return call.result(std::move(e));
  } else {
    if (local.ok()) local = io::check_access(*f, a.direction, io::Where::kFromPointer, 0, b);
    if (!local.ok()) return call.result(std::move(local));
    if (Err e = io::shared_pointer::fetch_and_add(*f, etypes, &at)) return call.result(std::move(e));
  }

  MPI_Status done{};
  if (a.form == Form::kNonblocking) {
    // Runs on the I/O worker (io/worker.h), at the place reserved above.
    Request* r = nullptr;
    if (Err e = io::worker::start(*f, a.name, a.direction, at, b, &r)) return call.result(std::move(e));
    *request = r->handle;
    return MPI_SUCCESS;
  }
  if (Err e = io::access(*f, a.direction, io::Where::kFromPointer, at, b,
                         a.form == Form::kBlocking || a.form == Form::kOrdered ? status : &done))
    return call.result(std::move(e));
  if (a.form == Form::kOrderedBegin) return call.result(io::begin_split(*f, a.name, done));
  return MPI_SUCCESS;
}

int split_end(const char* name, const char* begin_name, MPI_File fh, MPI_Status* status) {
  api::Call call(name);
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  return call.result(io::end_split(*f, begin_name, status));
}

constexpr Direction kRead = Direction::kRead;
constexpr Direction kWrite = Direction::kWrite;

}  // namespace

extern "C" int PMPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return shared_access({"MPI_File_read_shared", kRead, Form::kBlocking}, fh, buf, count, datatype, status, nullptr);
}
FERRY_ENTRY(File_read_shared)

extern "C" int PMPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                      MPI_Status* status) {
  return shared_access({"MPI_File_write_shared", kWrite, Form::kBlocking}, fh, buf, count, datatype, status,
                       nullptr);
}
FERRY_ENTRY(File_write_shared)

extern "C" int PMPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                      MPI_Request* request) {
  return shared_access({"MPI_File_iread_shared", kRead, Form::kNonblocking}, fh, buf, count, datatype, nullptr,
                       request);
}
FERRY_ENTRY(File_iread_shared)

extern "C" int PMPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                       MPI_Request* request) {
  return shared_access({"MPI_File_iwrite_shared", kWrite, Form::kNonblocking}, fh, buf, count, datatype, nullptr,
                       request);
}
FERRY_ENTRY(File_iwrite_shared)

extern "C" int PMPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return shared_access({"MPI_File_read_ordered", kRead, Form::kOrdered}, fh, buf, count, datatype, status, nullptr);
}
FERRY_ENTRY(File_read_ordered)

extern "C" int PMPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                       MPI_Status* status) {
  return shared_access({"MPI_File_write_ordered", kWrite, Form::kOrdered}, fh, buf, count, datatype, status,
                       nullptr);
}
FERRY_ENTRY(File_write_ordered)

extern "C" int PMPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return shared_access({"MPI_File_read_ordered_begin", kRead, Form::kOrderedBegin}, fh, buf, count, datatype,
                       nullptr, nullptr);
}
FERRY_ENTRY(File_read_ordered_begin)

extern "C" int PMPI_File_read_ordered_end(MPI_File fh, void*, MPI_Status* status) {
  return split_end("MPI_File_read_ordered_end", "MPI_File_read_ordered_begin", fh, status);
}
FERRY_ENTRY(File_read_ordered_end)

extern "C" int PMPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return shared_access({"MPI_File_write_ordered_begin", kWrite, Form::kOrderedBegin}, fh, buf, count, datatype,
                       nullptr, nullptr);
}
FERRY_ENTRY(File_write_ordered_begin)

extern "C" int PMPI_File_write_ordered_end(MPI_File fh, const void*, MPI_Status* status) {
  return split_end("MPI_File_write_ordered_end", "MPI_File_write_ordered_begin", fh, status);
}
FERRY_ENTRY(File_write_ordered_end)

extern "C" int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  api::Call call("MPI_File_seek_shared");
  io::File* f = call.file(fh);
  if (f == nullptr) return call.raise();
  // Collective: a bad argument here fails the call on every process.
  Err local;
  if (f->sequential())
    local = fail(MPI_ERR_UNSUPPORTED_OPERATION, "'%s' was opened with MPI_MODE_SEQUENTIAL: it cannot seek",
                 f->path.c_str());
  else if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
    local = fail(MPI_ERR_ARG, "invalid whence %d (MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END)", whence);
  return call.result(io::shared_pointer::seek(*f, offset, whence, std::move(local)));
}
FERRY_ENTRY(File_seek_shared)

extern "C" int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  api::Call call("MPI_File_get_position_shared");
  io::File* f = call.file(fh);
  if (f == nullptr || !call.not_null(offset, "offset")) return call.raise();
  return call.result(io::shared_pointer::fetch_and_add(*f, 0, offset));
}
FERRY_ENTRY(File_get_position_shared)

// ---- The same with MPI_Count counts (MPI-4.0 §14.4, large counts) ---------------------------

extern "C" int PMPI_File_read_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                       MPI_Status* status) {
  return shared_access({"MPI_File_read_shared_c", kRead, Form::kBlocking}, fh, buf, count, datatype, status, nullptr);
}
FERRY_ENTRY(File_read_shared_c)

extern "C" int PMPI_File_write_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                        MPI_Status* status) {
  return shared_access({"MPI_File_write_shared_c", kWrite, Form::kBlocking}, fh, buf, count, datatype, status,
                       nullptr);
}
FERRY_ENTRY(File_write_shared_c)

extern "C" int PMPI_File_iread_shared_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                        MPI_Request* request) {
  return shared_access({"MPI_File_iread_shared_c", kRead, Form::kNonblocking}, fh, buf, count, datatype, nullptr,
                       request);
}
FERRY_ENTRY(File_iread_shared_c)

extern "C" int PMPI_File_iwrite_shared_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                         MPI_Request* request) {
  return shared_access({"MPI_File_iwrite_shared_c", kWrite, Form::kNonblocking}, fh, buf, count, datatype, nullptr,
                       request);
}
FERRY_ENTRY(File_iwrite_shared_c)

extern "C" int PMPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                        MPI_Status* status) {
  return shared_access({"MPI_File_read_ordered_c", kRead, Form::kOrdered}, fh, buf, count, datatype, status, nullptr);
}
FERRY_ENTRY(File_read_ordered_c)

extern "C" int PMPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                         MPI_Status* status) {
  return shared_access({"MPI_File_write_ordered_c", kWrite, Form::kOrdered}, fh, buf, count, datatype, status,
                       nullptr);
}
FERRY_ENTRY(File_write_ordered_c)

extern "C" int PMPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return shared_access({"MPI_File_read_ordered_begin_c", kRead, Form::kOrderedBegin}, fh, buf, count, datatype,
                       nullptr, nullptr);
}
FERRY_ENTRY(File_read_ordered_begin_c)

extern "C" int PMPI_File_write_ordered_begin_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  return shared_access({"MPI_File_write_ordered_begin_c", kWrite, Form::kOrderedBegin}, fh, buf, count, datatype,
                       nullptr, nullptr);
}
FERRY_ENTRY(File_write_ordered_begin_c)
