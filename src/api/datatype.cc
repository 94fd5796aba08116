// Datatype constructors (MPI-3.1 §4.1.2-4.1.7), and the MPI-1 forms
// removed in MPI-3.0 that MPICH's header still declares (MPI-1's MPI_LB and
// MPI_UB markers in a struct, which MPICH 4.0 still honours, included).
#include <string>
#include <vector>

#include "api/api.h"
#include "base/attribute.h"
#include "base/type_constructors.h"

using namespace ferry;

namespace {

// The checks every constructor shares: MPI is running, the old type is a
// type, newtype can be written.
const Datatype* check_old(api::Call& call, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (!call.initialized()) return nullptr;
  const Datatype* old = call.datatype(oldtype, "oldtype");
  if (!call.not_null(newtype, "newtype")) return nullptr;
  return old;
}

// Every entry of a count array must be >= 0 (MPI_ERR_COUNT, as MPICH).
bool counts(api::Call& call, int n, const int values[], const char* argument) {
  if (!call.ok()) return false;
  for (int i = 0; i < n; ++i)
    if (values[i] < 0) return call.fail(MPI_ERR_COUNT, "%s[%d] is %d (must be >= 0)", argument, i, values[i]);
  return true;
}

// An array argument may be NULL only when it has no entries.
bool array(api::Call& call, int n, const void* values, const char* argument) {
  if (!call.ok()) return false;
  if (n > 0 && values == nullptr) return call.fail(MPI_ERR_ARG, "%s is NULL with count %d", argument, n);
  return true;
}

// `t` is read after the constructor ran (argument order is unspecified).
int finish(api::Call& call, Err e, const Datatype* const* t, MPI_Datatype* newtype) {
  if (e) return call.result(std::move(e));
  *newtype = (*t)->handle;
  return MPI_SUCCESS;
}

int create_hvector(const char* name, int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                   MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !call.count(blocklength, "blocklength")) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::hvector(count, blocklength, stride, *old, &t), &t, newtype);
}

int create_hindexed(const char* name, int count, const int blocklengths[], const MPI_Aint displacements[],
                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !array(call, count, blocklengths, "array_of_blocklengths") ||
      !array(call, count, displacements, "array_of_displacements") ||
      !counts(call, count, blocklengths, "array_of_blocklengths"))
    return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::hindexed(count, blocklengths, displacements, *old, &t), &t, newtype);
}

int create_struct(const char* name, int count, const int blocklengths[], const MPI_Aint displacements[],
                  const MPI_Datatype types[], MPI_Datatype* newtype) {
  api::Call call(name);
  if (!call.initialized() || !call.not_null(newtype, "newtype") || !call.count(count) ||
      !array(call, count, blocklengths, "array_of_blocklengths") ||
      !array(call, count, displacements, "array_of_displacements") || !array(call, count, types, "array_of_types") ||
      !counts(call, count, blocklengths, "array_of_blocklengths"))
    return call.raise();
  std::vector<const Datatype*> parts(static_cast<size_t>(count));
  // MPI_LB and MPI_UB are types too: datatypes::structure takes them as markers.
  for (int i = 0; i < count && call.ok(); ++i) {
    std::string argument = "array_of_types[" + std::to_string(i) + "]";
    parts[static_cast<size_t>(i)] = call.datatype(types[i], argument.c_str());
  }
  if (!call.ok()) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::structure(count, blocklengths, displacements, parts.data(), &t), &t, newtype);
}

}  // namespace

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call("MPI_Type_contiguous");
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count)) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::contiguous(count, *old, &t), &t, newtype);
}
FERRY_WEAK_ALIAS(Type_contiguous)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call("MPI_Type_vector");
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !call.count(blocklength, "blocklength")) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::vector(count, blocklength, stride, *old, &t), &t, newtype);
}
FERRY_WEAK_ALIAS(Type_vector)

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                        MPI_Datatype* newtype) {
  return create_hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype);
}
FERRY_WEAK_ALIAS(Type_create_hvector)

extern "C" int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call("MPI_Type_indexed");
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !array(call, count, blocklengths, "array_of_blocklengths") ||
      !array(call, count, displacements, "array_of_displacements") ||
      !counts(call, count, blocklengths, "array_of_blocklengths"))
    return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::indexed(count, blocklengths, displacements, *old, &t), &t, newtype);
}
FERRY_WEAK_ALIAS(Type_indexed)

extern "C" int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return create_hindexed("MPI_Type_create_hindexed", count, blocklengths, displacements, oldtype, newtype);
}
FERRY_WEAK_ALIAS(Type_create_hindexed)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call("MPI_Type_create_indexed_block");
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !call.count(blocklength, "blocklength") ||
      !array(call, count, displacements, "array_of_displacements"))
    return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::indexed_block(count, blocklength, displacements, *old, &t), &t, newtype);
}
FERRY_WEAK_ALIAS(Type_create_indexed_block)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call("MPI_Type_create_hindexed_block");
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !call.count(blocklength, "blocklength") ||
      !array(call, count, displacements, "array_of_displacements"))
    return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::hindexed_block(count, blocklength, displacements, *old, &t), &t, newtype);
}
FERRY_WEAK_ALIAS(Type_create_hindexed_block)

extern "C" int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                                       const MPI_Datatype types[], MPI_Datatype* newtype) {
  return create_struct("MPI_Type_create_struct", count, blocklengths, displacements, types, newtype);
}
FERRY_WEAK_ALIAS(Type_create_struct)

extern "C" int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call("MPI_Type_create_subarray");
  const Datatype* old = check_old(call, oldtype, newtype);
  if (call.ok() && ndims < 1) call.fail(MPI_ERR_ARG, "ndims is %d (must be > 0)", ndims);
  if (!array(call, ndims, sizes, "array_of_sizes") || !array(call, ndims, subsizes, "array_of_subsizes") ||
      !array(call, ndims, starts, "array_of_starts"))
    return call.raise();
  for (int d = 0; d < ndims && call.ok(); ++d) {
    if (sizes[d] < 1) call.fail(MPI_ERR_ARG, "array_of_sizes[%d] is %d (must be > 0)", d, sizes[d]);
    else if (subsizes[d] < 0 || subsizes[d] > sizes[d])
      call.fail(MPI_ERR_ARG, "array_of_subsizes[%d] is %d (must be 0 to array_of_sizes[%d] = %d)", d, subsizes[d], d,
                sizes[d]);
    else if (starts[d] < 0 || starts[d] > sizes[d] - subsizes[d])
      call.fail(MPI_ERR_ARG, "array_of_starts[%d] is %d (the subarray of %d must fit in %d)", d, starts[d],
                subsizes[d], sizes[d]);
  }
  if (call.ok() && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    call.fail(MPI_ERR_ARG, "order is %d (must be MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
  if (!call.ok()) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::subarray(ndims, sizes, subsizes, starts, order, *old, &t), &t, newtype);
}
FERRY_WEAK_ALIAS(Type_create_subarray)

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                                       const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  api::Call call("MPI_Type_create_darray");
  const Datatype* old = check_old(call, oldtype, newtype);
  if (call.ok() && size < 1) call.fail(MPI_ERR_ARG, "size is %d (must be > 0)", size);
  if (call.ok() && ndims < 1) call.fail(MPI_ERR_ARG, "ndims is %d (must be > 0)", ndims);
  if (!array(call, ndims, gsizes, "array_of_gsizes") || !array(call, ndims, distribs, "array_of_distribs") ||
      !array(call, ndims, dargs, "array_of_dargs") || !array(call, ndims, psizes, "array_of_psizes"))
    return call.raise();
  std::string problem = datatypes::darray_problem(size, rank, ndims, gsizes, distribs, dargs, psizes);
  if (!problem.empty()) call.fail(MPI_ERR_ARG, "%s", problem.c_str());
  if (call.ok() && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    call.fail(MPI_ERR_ARG, "order is %d (must be MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
  if (!call.ok()) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, *old, &t), &t,
                newtype);
}
FERRY_WEAK_ALIAS(Type_create_darray)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  api::Call call("MPI_Type_create_resized");
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.ok()) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::resized(*old, lb, extent, &t), &t, newtype);
}
FERRY_WEAK_ALIAS(Type_create_resized)

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call("MPI_Type_dup");
  if (!call.initialized()) return call.raise();
  const Datatype* old = call.datatype(oldtype, "oldtype");
  if (!call.not_null(newtype, "newtype")) return call.raise();
  const Datatype* t = nullptr;
  int rc = finish(call, datatypes::dup(*old, &t), &t, newtype);
  if (rc != MPI_SUCCESS) return rc;
  // MPI-3.1 §4.1.10: the duplicate gets the attributes that copy callbacks keep.
  if (Err e = attributes::copy_all(attributes::Kind::kType, old, oldtype, t, *newtype)) {
    PMPI_Type_free(newtype);
    return call.result(std::move(e));
  }
  return MPI_SUCCESS;
}
FERRY_WEAK_ALIAS(Type_dup)

// --- Removed in MPI-3.0 (MPI-1 names) --------------------------------------------

extern "C" int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  return create_hvector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype);
}
FERRY_WEAK_ALIAS(Type_hvector)

extern "C" int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  return create_hindexed("MPI_Type_hindexed", count, blocklengths, displacements, oldtype, newtype);
}
FERRY_WEAK_ALIAS(Type_hindexed)

extern "C" int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[],
                                MPI_Datatype* newtype) {
  return create_struct("MPI_Type_struct", count, blocklengths, displacements, types, newtype);
}
FERRY_WEAK_ALIAS(Type_struct)
