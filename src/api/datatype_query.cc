// A datatype's life and what can be asked of it: commit and free
// (MPI-3.1 §4.1.9), true extent (§4.1.8), names (§6.8),
// MPI_Type_match_size (§17.2.5), and the MPI-1 extent queries removed in
// MPI-3.0. Size and extent are in status.cc, envelope and contents in
// datatype_contents.cc.
#include <algorithm>
#include <cstring>

#include "api/api.h"
#include "base/attribute.h"
#include "base/type_f90.h"

using namespace ferry;

namespace {

const Datatype* check_type(api::Call& call, MPI_Datatype datatype) {
  if (!call.initialized()) return nullptr;
  return call.datatype(datatype);
}

}  // namespace

extern "C" int PMPI_Type_commit(MPI_Datatype* datatype) {
  api::Call call("MPI_Type_commit");
  if (!call.initialized() || !call.not_null(datatype, "datatype")) return call.raise();
  const Datatype* t = call.datatype(*datatype);
  if (!call.ok()) return call.raise();
  // The layout is built when the type is created; committing only allows
  // the type in communication. Predefined types are committed already.
  datatypes::commit(t);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_commit)

extern "C" int PMPI_Type_free(MPI_Datatype* datatype) {
  api::Call call("MPI_Type_free");
  if (!call.initialized() || !call.not_null(datatype, "datatype")) return call.raise();
  const Datatype* t = call.datatype(*datatype);
  if (call.ok() && t->predefined())
    call.fail(MPI_ERR_TYPE, "datatype %s is predefined and cannot be freed", t->name);
  // MPI-3.1 §17.2.5: so are the types MPI_Type_create_f90_* returns.
  else if (call.ok() && datatypes::is_f90(*t))
    call.fail(MPI_ERR_TYPE, "datatype %s is predefined (made by MPI_Type_create_f90_*) and cannot be freed",
              datatype_label(*t).c_str());
  if (!call.ok()) return call.raise();
  // Attribute delete callbacks run first; one that fails keeps the type.
  if (Err e = attributes::delete_all(attributes::Kind::kType, t, *datatype)) return call.result(std::move(e));
  // Pending operations and types built from it hold their own references.
  datatypes::release(t);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_free)

namespace {

int true_extent_of(const char* name, MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  api::Call call(name);
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(true_lb, "true_lb") || !call.not_null(true_extent, "true_extent")) return call.raise();
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return true_extent_of("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent);
}
FERRY_ENTRY(Type_get_true_extent_x)

extern "C" int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return true_extent_of("MPI_Type_get_true_extent_c", datatype, true_lb, true_extent);
}
FERRY_ENTRY(Type_get_true_extent_c)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  api::Call call("MPI_Type_get_true_extent");
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(true_lb, "true_lb") || !call.not_null(true_extent, "true_extent")) return call.raise();
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_get_true_extent)

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  api::Call call("MPI_Type_get_name");
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(type_name, "type_name") || !call.not_null(resultlen, "resultlen")) return call.raise();
  size_t n = std::min(std::strlen(t->name), static_cast<size_t>(MPI_MAX_OBJECT_NAME - 1));
  std::memcpy(type_name, t->name, n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_get_name)

extern "C" int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  api::Call call("MPI_Type_set_name");
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(type_name, "type_name")) return call.raise();
  // Longer names are cut to what MPI_Type_get_name can return (MPI-3.1 §6.8).
  datatypes::set_name(t, std::string(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1)));
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_set_name)

// --- Removed in MPI-3.0 ----------------------------------------------------------

extern "C" int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  api::Call call("MPI_Type_extent");
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(extent, "extent")) return call.raise();
  *extent = t->extent;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_extent)

extern "C" int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  api::Call call("MPI_Type_lb");
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(displacement, "displacement")) return call.raise();
  *displacement = t->lb;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_lb)

extern "C" int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  api::Call call("MPI_Type_ub");
  const Datatype* t = check_type(call, datatype);
  if (!call.not_null(displacement, "displacement")) return call.raise();
  *displacement = t->lb + t->extent;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_ub)

// MPI-3.1 §17.2.5: the returned type is predefined (it must not be freed).
extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  api::Call call("MPI_Type_match_size");
  if (!call.initialized() || !call.not_null(datatype, "datatype")) return call.raise();
  const Datatype* t = nullptr;
  if (Err e = datatypes::match_size(typeclass, size, &t)) return call.result(std::move(e));
  *datatype = t->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Type_match_size)
