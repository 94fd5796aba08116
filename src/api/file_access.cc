// Data access (MPI-3.1 §13.4): explicit offsets and the individual file
// pointer; blocking, nonblocking and split collective. Every entry point
// names its form and calls one checker, which calls io::access.
//
// The collective forms go to io/collective.h (two-phase collective
// buffering, or each process on its own); the nonblocking independent ones
// run on the I/O worker (io/worker.h), the nonblocking collective ones on
// the file's thread (io/nonblocking_collective.h). Shared file pointers are
// api/file_shared.cc's.
#include <cstring>

#include "api/api.h"
#include "io/access.h"
#include "io/completion.h"
#include "io/nonblocking_collective.h"
#include "io/worker.h"

using namespace ferry;
using io::Direction;
using io::Where;

namespace {

// kBackground: nonblocking and independent, run by the I/O worker
// (io/worker.h); kNonblocking: the collective ones, run by the file's
// thread (io/nonblocking_collective.h).
enum class Form { kBlocking, kNonblocking, kBackground, kSplitBegin };

struct Access {
  const char* name;
  Direction direction;
  Where where;
  Form form;
};

int data_access(const Access& a, MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                MPI_Datatype datatype, MPI_Status* status, MPI_Request* request) {
  api::Call call(a.name);
  bool nonblocking = a.form == Form::kNonblocking || a.form == Form::kBackground;
  if (nonblocking && request != nullptr) *request = MPI_REQUEST_NULL;
  // "_all" names exactly the collective routines here (MPI-3.1 §13.4.1,
  // Table 13.1: *_all, i*_all and *_all_begin).
  io::Coordination how = std::strstr(a.name, "_all") != nullptr ? io::Coordination::kCollective
                                                                 : io::Coordination::kIndependent;
  io::File* f = call.file(fh);
  const Datatype* t = call.datatype(datatype);
  bool valid = f != nullptr && t != nullptr && call.movable(t) && call.count(count) && call.buffer(buf, count, t) &&
               (!nonblocking || call.not_null(request, "request"));
  if (valid && a.form == Form::kSplitBegin) {
    if (Err e = io::check_no_split(*f, a.name)) valid = call.fail(std::move(e));
  }
  if (!valid) {
    if (f == nullptr || how == io::Coordination::kIndependent) return call.raise();
    // A collective call still takes part, with no data, so that the other
    // processes return this one's error instead of waiting for it (a
    // nonblocking one too, at the call: there may be no request to carry
    // the error).
    io::Buffer none{nullptr, 0, find_datatype(MPI_BYTE)};
    return call.result(io::access(*f, a.direction, a.where, offset, none, MPI_STATUS_IGNORE, how, call.take_error()));
  }
  MPI_Status done{};
  io::Buffer b{const_cast<void*>(buf), static_cast<uint64_t>(count), t};
  if (a.form == Form::kBackground) {
    Request* r = nullptr;
    if (Err e = io::worker::start_access(*f, a.name, a.direction, a.where, offset, b, &r))
      return call.result(std::move(e));
    *request = r->handle;
    return MPI_SUCCESS;
  }
  if (a.form == Form::kNonblocking) {
    Request* r = nullptr;
    if (Err e = io::nonblocking_collective::start(*f, a.name, a.direction, a.where, offset, b, &r))
      return call.result(std::move(e));
    *request = r->handle;
    return MPI_SUCCESS;
  }
  if (Err e = io::access(*f, a.direction, a.where, offset, b, a.form == Form::kBlocking ? status : &done, how))
    return call.result(std::move(e));
  if (a.form == Form::kSplitBegin) return call.result(io::begin_split(*f, a.name, done));
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
constexpr Where kAt = Where::kExplicitOffset;
constexpr Where kPointer = Where::kIndividualPointer;

}  // namespace

// ---- Explicit offsets --------------------------------------------------------

extern "C" int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                 MPI_Status* status) {
  return data_access({"MPI_File_read_at", kRead, kAt, Form::kBlocking}, fh, offset, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_read_at)

extern "C" int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                     MPI_Status* status) {
  return data_access({"MPI_File_read_at_all", kRead, kAt, Form::kBlocking}, fh, offset, buf, count, datatype,
                     status, nullptr);
}
FERRY_ENTRY(File_read_at_all)

extern "C" int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                                  MPI_Status* status) {
  return data_access({"MPI_File_write_at", kWrite, kAt, Form::kBlocking}, fh, offset, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_write_at)

extern "C" int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                      MPI_Datatype datatype, MPI_Status* status) {
  return data_access({"MPI_File_write_at_all", kWrite, kAt, Form::kBlocking}, fh, offset, buf, count, datatype,
                     status, nullptr);
}
FERRY_ENTRY(File_write_at_all)

extern "C" int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                  MPI_Request* request) {
  return data_access({"MPI_File_iread_at", kRead, kAt, Form::kBackground}, fh, offset, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iread_at)

extern "C" int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                      MPI_Request* request) {
  return data_access({"MPI_File_iread_at_all", kRead, kAt, Form::kNonblocking}, fh, offset, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iread_at_all)

extern "C" int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                   MPI_Datatype datatype, MPI_Request* request) {
  return data_access({"MPI_File_iwrite_at", kWrite, kAt, Form::kBackground}, fh, offset, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iwrite_at)

extern "C" int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                       MPI_Datatype datatype, MPI_Request* request) {
  return data_access({"MPI_File_iwrite_at_all", kWrite, kAt, Form::kNonblocking}, fh, offset, buf, count,
                     datatype, nullptr, request);
}
FERRY_ENTRY(File_iwrite_at_all)

extern "C" int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                           MPI_Datatype datatype) {
  return data_access({"MPI_File_read_at_all_begin", kRead, kAt, Form::kSplitBegin}, fh, offset, buf, count,
                     datatype, nullptr, nullptr);
}
FERRY_ENTRY(File_read_at_all_begin)

extern "C" int PMPI_File_read_at_all_end(MPI_File fh, void*, MPI_Status* status) {
  return split_end("MPI_File_read_at_all_end", "MPI_File_read_at_all_begin", fh, status);
}
FERRY_ENTRY(File_read_at_all_end)

extern "C" int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                            MPI_Datatype datatype) {
  return data_access({"MPI_File_write_at_all_begin", kWrite, kAt, Form::kSplitBegin}, fh, offset, buf, count,
                     datatype, nullptr, nullptr);
}
FERRY_ENTRY(File_write_at_all_begin)

extern "C" int PMPI_File_write_at_all_end(MPI_File fh, const void*, MPI_Status* status) {
  return split_end("MPI_File_write_at_all_end", "MPI_File_write_at_all_begin", fh, status);
}
FERRY_ENTRY(File_write_at_all_end)

// ---- The individual file pointer -----------------------------------------------

extern "C" int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return data_access({"MPI_File_read", kRead, kPointer, Form::kBlocking}, fh, 0, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_read)

extern "C" int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return data_access({"MPI_File_read_all", kRead, kPointer, Form::kBlocking}, fh, 0, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_read_all)

extern "C" int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return data_access({"MPI_File_write", kWrite, kPointer, Form::kBlocking}, fh, 0, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_write)

extern "C" int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                   MPI_Status* status) {
  return data_access({"MPI_File_write_all", kWrite, kPointer, Form::kBlocking}, fh, 0, buf, count, datatype,
                     status, nullptr);
}
FERRY_ENTRY(File_write_all)

extern "C" int PMPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return data_access({"MPI_File_iread", kRead, kPointer, Form::kBackground}, fh, 0, buf, count, datatype, nullptr,
                     request);
}
FERRY_ENTRY(File_iread)

extern "C" int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return data_access({"MPI_File_iread_all", kRead, kPointer, Form::kNonblocking}, fh, 0, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iread_all)

extern "C" int PMPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                MPI_Request* request) {
  return data_access({"MPI_File_iwrite", kWrite, kPointer, Form::kBackground}, fh, 0, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iwrite)

extern "C" int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                    MPI_Request* request) {
  return data_access({"MPI_File_iwrite_all", kWrite, kPointer, Form::kNonblocking}, fh, 0, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iwrite_all)

extern "C" int PMPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return data_access({"MPI_File_read_all_begin", kRead, kPointer, Form::kSplitBegin}, fh, 0, buf, count, datatype,
                     nullptr, nullptr);
}
FERRY_ENTRY(File_read_all_begin)

extern "C" int PMPI_File_read_all_end(MPI_File fh, void*, MPI_Status* status) {
  return split_end("MPI_File_read_all_end", "MPI_File_read_all_begin", fh, status);
}
FERRY_ENTRY(File_read_all_end)

extern "C" int PMPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return data_access({"MPI_File_write_all_begin", kWrite, kPointer, Form::kSplitBegin}, fh, 0, buf, count,
                     datatype, nullptr, nullptr);
}
FERRY_ENTRY(File_write_all_begin)

extern "C" int PMPI_File_write_all_end(MPI_File fh, const void*, MPI_Status* status) {
  return split_end("MPI_File_write_all_end", "MPI_File_write_all_begin", fh, status);
}
FERRY_ENTRY(File_write_all_end)

// ---- The same with MPI_Count counts (MPI-4.0 §14.4, large counts) ---------------------------

extern "C" int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
                                   MPI_Status* status) {
  return data_access({"MPI_File_read_at_c", kRead, kAt, Form::kBlocking}, fh, offset, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_read_at_c)

extern "C" int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Status* status) {
  return data_access({"MPI_File_read_at_all_c", kRead, kAt, Form::kBlocking}, fh, offset, buf, count, datatype,
                     status, nullptr);
}
FERRY_ENTRY(File_read_at_all_c)

extern "C" int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Status* status) {
  return data_access({"MPI_File_write_at_c", kWrite, kAt, Form::kBlocking}, fh, offset, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_write_at_c)

extern "C" int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Status* status) {
  return data_access({"MPI_File_write_at_all_c", kWrite, kAt, Form::kBlocking}, fh, offset, buf, count, datatype,
                     status, nullptr);
}
FERRY_ENTRY(File_write_at_all_c)

extern "C" int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Request* request) {
  return data_access({"MPI_File_iread_at_c", kRead, kAt, Form::kBackground}, fh, offset, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iread_at_c)

extern "C" int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Request* request) {
  return data_access({"MPI_File_iread_at_all_c", kRead, kAt, Form::kNonblocking}, fh, offset, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iread_at_all_c)

extern "C" int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Request* request) {
  return data_access({"MPI_File_iwrite_at_c", kWrite, kAt, Form::kBackground}, fh, offset, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iwrite_at_c)

extern "C" int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                         MPI_Datatype datatype, MPI_Request* request) {
  return data_access({"MPI_File_iwrite_at_all_c", kWrite, kAt, Form::kNonblocking}, fh, offset, buf, count,
                     datatype, nullptr, request);
}
FERRY_ENTRY(File_iwrite_at_all_c)

extern "C" int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                             MPI_Datatype datatype) {
  return data_access({"MPI_File_read_at_all_begin_c", kRead, kAt, Form::kSplitBegin}, fh, offset, buf, count,
                     datatype, nullptr, nullptr);
}
FERRY_ENTRY(File_read_at_all_begin_c)

extern "C" int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                              MPI_Datatype datatype) {
  return data_access({"MPI_File_write_at_all_begin_c", kWrite, kAt, Form::kSplitBegin}, fh, offset, buf, count,
                     datatype, nullptr, nullptr);
}
FERRY_ENTRY(File_write_at_all_begin_c)

extern "C" int PMPI_File_read_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  return data_access({"MPI_File_read_c", kRead, kPointer, Form::kBlocking}, fh, 0, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_read_c)

extern "C" int PMPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Status* status) {
  return data_access({"MPI_File_read_all_c", kRead, kPointer, Form::kBlocking}, fh, 0, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_read_all_c)

extern "C" int PMPI_File_write_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                 MPI_Status* status) {
  return data_access({"MPI_File_write_c", kWrite, kPointer, Form::kBlocking}, fh, 0, buf, count, datatype, status,
                     nullptr);
}
FERRY_ENTRY(File_write_c)

extern "C" int PMPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Status* status) {
  return data_access({"MPI_File_write_all_c", kWrite, kPointer, Form::kBlocking}, fh, 0, buf, count, datatype,
                     status, nullptr);
}
FERRY_ENTRY(File_write_all_c)

extern "C" int PMPI_File_iread_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  return data_access({"MPI_File_iread_c", kRead, kPointer, Form::kBackground}, fh, 0, buf, count, datatype, nullptr,
                     request);
}
FERRY_ENTRY(File_iread_c)

extern "C" int PMPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                     MPI_Request* request) {
  return data_access({"MPI_File_iread_all_c", kRead, kPointer, Form::kNonblocking}, fh, 0, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iread_all_c)

extern "C" int PMPI_File_iwrite_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                  MPI_Request* request) {
  return data_access({"MPI_File_iwrite_c", kWrite, kPointer, Form::kBackground}, fh, 0, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iwrite_c)

extern "C" int PMPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                      MPI_Request* request) {
  return data_access({"MPI_File_iwrite_all_c", kWrite, kPointer, Form::kNonblocking}, fh, 0, buf, count, datatype,
                     nullptr, request);
}
FERRY_ENTRY(File_iwrite_all_c)

extern "C" int PMPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  return data_access({"MPI_File_read_all_begin_c", kRead, kPointer, Form::kSplitBegin}, fh, 0, buf, count, datatype,
                     nullptr, nullptr);
}
FERRY_ENTRY(File_read_all_begin_c)

extern "C" int PMPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  return data_access({"MPI_File_write_all_begin_c", kWrite, kPointer, Form::kSplitBegin}, fh, 0, buf, count,
                     datatype, nullptr, nullptr);
}
FERRY_ENTRY(File_write_all_begin_c)
