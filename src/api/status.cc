// What a status says (MPI-3.1 §3.2.5, §4.1.11) and the sizes of datatypes.
#include "api/api.h"
#include "base/request.h"

using namespace ferry;

namespace {

// Elements of `t` in `bytes`; MPI_UNDEFINED if not a whole number.
MPI_Count elements_in(size_t bytes, const Datatype& t) {
  if (t.size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  if (bytes % t.size != 0) return MPI_UNDEFINED;
  return static_cast<MPI_Count>(bytes / t.size);
}

int count_of(const char* name, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  api::Call call(name);
  const Datatype* t = call.datatype(datatype);
  if (!call.not_null(status, "status") || !call.not_null(count, "count")) return call.raise();
  *count = elements_in(status_bytes(*status), *t);
  return MPI_SUCCESS;
}

int as_int(MPI_Count c) { return c > INT32_MAX ? MPI_UNDEFINED : static_cast<int>(c); }

// Basic elements in `bytes` of a message of `t` (MPI-3.1 §4.1.11): whole
// elements of the type and, of a partly filled last one, the basic
// elements that arrived whole. A basic type has no part of an element to
// count: MPI_UNDEFINED then, as for MPI_Get_count.
int elements_of(const char* name, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  api::Call call(name);
  const Datatype* t = call.datatype(datatype);
  if (!call.not_null(status, "status") || !call.not_null(count, "count")) return call.raise();
  size_t bytes = status_bytes(*status);
  if (t->size == 0) {
    *count = 0;
    return MPI_SUCCESS;
  }
  const type::Signature& s = *t->signature;
  if (t->predefined() && s.elements() == 1) {
    *count = elements_in(bytes, *t);
    return MPI_SUCCESS;
  }
  *count = static_cast<MPI_Count>((bytes / t->size) * s.elements() + s.elements_in(bytes % t->size));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  MPI_Count c = 0;
  int rc = count_of("MPI_Get_count", status, datatype, &c);
  if (rc == MPI_SUCCESS && count != nullptr) *count = as_int(c);
  return rc;
}
FERRY_ENTRY(Get_count)

extern "C" int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  MPI_Count c = 0;
  int rc = elements_of("MPI_Get_elements", status, datatype, &c);
  if (rc == MPI_SUCCESS && count != nullptr) *count = as_int(c);
  return rc;
}
FERRY_ENTRY(Get_elements)

extern "C" int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return elements_of("MPI_Get_elements_x", status, datatype, count);
}
FERRY_ENTRY(Get_elements_x)

extern "C" int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  api::Call call("MPI_Status_set_elements_x");
  const Datatype* t = call.datatype(datatype);
  if (!call.not_null(status, "status")) return call.raise();
  if (count < 0) {
    call.fail(MPI_ERR_COUNT, "invalid count %lld (must be >= 0)", static_cast<long long>(count));
    return call.raise();
  }
  set_status_bytes(*status, static_cast<size_t>(count) * t->size);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Status_set_elements_x)

extern "C" int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return PMPI_Status_set_elements_x(status, datatype, count);
}
FERRY_ENTRY(Status_set_elements)

extern "C" int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  api::Call call("MPI_Status_set_cancelled");
  if (!call.not_null(status, "status")) return call.raise();
  set_status_cancelled(*status, flag != 0);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Status_set_cancelled)

extern "C" int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  api::Call call("MPI_Test_cancelled");
  if (!call.not_null(status, "status") || !call.not_null(flag, "flag")) return call.raise();
  *flag = status_cancelled(*status);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Test_cancelled)

namespace {

int size_of(const char* name, MPI_Datatype datatype, MPI_Count* size) {
  api::Call call(name);
  const Datatype* t = call.datatype(datatype);
  if (!call.not_null(size, "size")) return call.raise();
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}

// MPI_Aint and MPI_Count are one type: every extent query shares this.
int extent_of(const char* name, MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  api::Call call(name);
  const Datatype* t = call.datatype(datatype);
  if (!call.not_null(lb, "lb") || !call.not_null(extent, "extent")) return call.raise();
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return size_of("MPI_Type_size_x", datatype, size);
}
FERRY_ENTRY(Type_size_x)

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  MPI_Count s = 0;
  int rc = size_of("MPI_Type_size", datatype, size != nullptr ? &s : nullptr);
  // MPI-4.0 §5.1.5: a size an int cannot hold is MPI_UNDEFINED.
  if (rc == MPI_SUCCESS) *size = as_int(s);
  return rc;
}
FERRY_ENTRY(Type_size)

extern "C" int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_of("MPI_Type_get_extent_x", datatype, lb, extent);
}
FERRY_ENTRY(Type_get_extent_x)

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return extent_of("MPI_Type_get_extent", datatype, lb, extent);
}
FERRY_ENTRY(Type_get_extent)

// The large-count forms (MPI-4.0): the same answers as MPI_Count, where the
// int forms above say MPI_UNDEFINED for what an int cannot hold.
extern "C" int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return count_of("MPI_Get_count_c", status, datatype, count);
}
FERRY_ENTRY(Get_count_c)

extern "C" int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return elements_of("MPI_Get_elements_c", status, datatype, count);
}
FERRY_ENTRY(Get_elements_c)

extern "C" int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  return size_of("MPI_Type_size_c", datatype, size);
}
FERRY_ENTRY(Type_size_c)

extern "C" int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_of("MPI_Type_get_extent_c", datatype, lb, extent);
}
FERRY_ENTRY(Type_get_extent_c)
