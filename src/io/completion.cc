#include "io/completion.h"

#include <cstring>

#include "base/request.h"

namespace ferry::io {

Err check_no_split(const File& f, const char* call) {
  if (f.split.begun_by != nullptr)
    return fail(MPI_ERR_OTHER, "%s is still in progress on this file: end it before %s", f.split.begun_by, call);
  return {};
}

Err begin_split(File& f, const char* call, const MPI_Status& status) {
  if (Err e = check_no_split(f, call)) return e;
  f.split.begun_by = call;
  f.split.status = status;
  return {};
}

Err end_split(File& f, const char* begin_call, MPI_Status* status) {
  if (f.split.begun_by == nullptr || std::strcmp(f.split.begun_by, begin_call) != 0)
    return fail(MPI_ERR_OTHER, "no %s is in progress on this file%s%s", begin_call,
                f.split.begun_by != nullptr ? "; the split collective in progress is " : "",
                f.split.begun_by != nullptr ? f.split.begun_by : "");
  report_status(status, f.split.status);
  f.split.begun_by = nullptr;
  return {};
}

}  // namespace ferry::io
