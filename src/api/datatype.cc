// Datatype constructors (MPI-4.0 §5.1.2-5.1.7) in their int and large-count
// (_c) forms, which share one path: the int arguments are widened to
// MPI_Count, and the form only decides how MPI_Type_get_contents reports
// them (base/type_constructors.h). Also the MPI-1 forms removed in MPI-3.0
// that MPICH's header still declares (MPI-1's MPI_LB and MPI_UB markers in a
// struct, which MPICH 4.0 still honours, included).
#include <string>
#include <vector>

#include "api/api.h"
#include "base/attribute.h"
#include "base/type_constructors.h"

using namespace ferry;
using datatypes::Counts;
using datatypes::Form;

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
bool counts(api::Call& call, MPI_Count n, Counts values, const char* argument) {
  if (!call.ok()) return false;
  for (MPI_Count i = 0; i < n; ++i)
    if (values[i] < 0)
      return call.fail(MPI_ERR_COUNT, "%s[%lld] is %lld (must be >= 0)", argument, static_cast<long long>(i),
                       static_cast<long long>(values[i]));
  return true;
}

// An array argument may be NULL only when it has no entries.
bool array(api::Call& call, MPI_Count n, const void* values, const char* argument) {
  if (!call.ok()) return false;
  if (n > 0 && values == nullptr)
    return call.fail(MPI_ERR_ARG, "%s is NULL with count %lld", argument, static_cast<long long>(n));
  return true;
}

// `t` is read after the constructor ran (argument order is unspecified).
int finish(api::Call& call, Err e, const Datatype* const* t, MPI_Datatype* newtype) {
  if (e) return call.result(std::move(e));
  *newtype = (*t)->handle;
  return MPI_SUCCESS;
}

int contiguous(const char* name, Form form, MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count)) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::contiguous(count, *old, &t, form), &t, newtype);
}

int vector(const char* name, Form form, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !call.count(blocklength, "blocklength")) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::vector(count, blocklength, stride, *old, &t, form), &t, newtype);
}

int hvector(const char* name, Form form, MPI_Count count, MPI_Count blocklength, MPI_Aint stride,
            MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !call.count(blocklength, "blocklength")) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::hvector(count, blocklength, stride, *old, &t, form), &t, newtype);
}

// Blocks at displacements: `raw_*` are the user's arrays, for the NULL checks.
int indexed(const char* name, Form form, MPI_Count count, const void* raw_blocklengths, Counts blocklengths,
            const void* raw_displacements, Counts displacements, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !array(call, count, raw_blocklengths, "array_of_blocklengths") ||
      !array(call, count, raw_displacements, "array_of_displacements") ||
      !counts(call, count, blocklengths, "array_of_blocklengths"))
    return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::indexed(count, blocklengths, displacements, *old, &t, form), &t, newtype);
}

int hindexed(const char* name, Form form, MPI_Count count, const void* raw_blocklengths, Counts blocklengths,
             const MPI_Aint displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !array(call, count, raw_blocklengths, "array_of_blocklengths") ||
      !array(call, count, displacements, "array_of_displacements") ||
      !counts(call, count, blocklengths, "array_of_blocklengths"))
    return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::hindexed(count, blocklengths, displacements, *old, &t, form), &t, newtype);
}

int indexed_block(const char* name, Form form, MPI_Count count, MPI_Count blocklength, const void* raw_displacements,
                  Counts displacements, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !call.count(blocklength, "blocklength") ||
      !array(call, count, raw_displacements, "array_of_displacements"))
    return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::indexed_block(count, blocklength, displacements, *old, &t, form), &t, newtype);
}

int hindexed_block(const char* name, Form form, MPI_Count count, MPI_Count blocklength,
                   const MPI_Aint displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.count(count) || !call.count(blocklength, "blocklength") ||
      !array(call, count, displacements, "array_of_displacements"))
    return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::hindexed_block(count, blocklength, displacements, *old, &t, form), &t, newtype);
}

int create_struct(const char* name, Form form, MPI_Count count, const void* raw_blocklengths, Counts blocklengths,
                  const MPI_Aint displacements[], const MPI_Datatype types[], MPI_Datatype* newtype) {
  api::Call call(name);
  if (!call.initialized() || !call.not_null(newtype, "newtype") || !call.count(count) ||
      !array(call, count, raw_blocklengths, "array_of_blocklengths") ||
      !array(call, count, displacements, "array_of_displacements") || !array(call, count, types, "array_of_types") ||
      !counts(call, count, blocklengths, "array_of_blocklengths"))
    return call.raise();
  std::vector<const Datatype*> parts(static_cast<size_t>(count));
  // MPI_LB and MPI_UB are types too: datatypes::structure takes them as markers.
  for (MPI_Count i = 0; i < count && call.ok(); ++i) {
    std::string argument = "array_of_types[" + std::to_string(i) + "]";
    parts[static_cast<size_t>(i)] = call.datatype(types[i], argument.c_str());
  }
  if (!call.ok()) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::structure(count, blocklengths, displacements, parts.data(), &t, form), &t, newtype);
}

int subarray(const char* name, Form form, int ndims, const void* raw_sizes, Counts sizes, const void* raw_subsizes,
             Counts subsizes, const void* raw_starts, Counts starts, int order, MPI_Datatype oldtype,
             MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (call.ok() && ndims < 1) call.fail(MPI_ERR_ARG, "ndims is %d (must be > 0)", ndims);
  if (!array(call, ndims, raw_sizes, "array_of_sizes") || !array(call, ndims, raw_subsizes, "array_of_subsizes") ||
      !array(call, ndims, raw_starts, "array_of_starts"))
    return call.raise();
  for (int d = 0; d < ndims && call.ok(); ++d) {
    long long size = sizes[d], subsize = subsizes[d], start = starts[d];
    if (size < 1) call.fail(MPI_ERR_ARG, "array_of_sizes[%d] is %lld (must be > 0)", d, size);
    else if (subsize < 0 || subsize > size)
      call.fail(MPI_ERR_ARG, "array_of_subsizes[%d] is %lld (must be 0 to array_of_sizes[%d] = %lld)", d, subsize, d,
                size);
    else if (start < 0 || start > size - subsize)
      call.fail(MPI_ERR_ARG, "array_of_starts[%d] is %lld (the subarray of %lld must fit in %lld)", d, start, subsize,
                size);
  }
  if (call.ok() && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    call.fail(MPI_ERR_ARG, "order is %d (must be MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
  if (!call.ok()) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::subarray(ndims, sizes, subsizes, starts, order, *old, &t, form), &t, newtype);
}

int darray(const char* name, Form form, int size, int rank, int ndims, const void* raw_gsizes, Counts gsizes,
           const int distribs[], const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
           MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (call.ok() && size < 1) call.fail(MPI_ERR_ARG, "size is %d (must be > 0)", size);
  if (call.ok() && ndims < 1) call.fail(MPI_ERR_ARG, "ndims is %d (must be > 0)", ndims);
  if (!array(call, ndims, raw_gsizes, "array_of_gsizes") || !array(call, ndims, distribs, "array_of_distribs") ||
      !array(call, ndims, dargs, "array_of_dargs") || !array(call, ndims, psizes, "array_of_psizes"))
    return call.raise();
  std::string problem = datatypes::darray_problem(size, rank, ndims, gsizes, distribs, dargs, psizes);
  if (!problem.empty()) call.fail(MPI_ERR_ARG, "%s", problem.c_str());
  if (call.ok() && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    call.fail(MPI_ERR_ARG, "order is %d (must be MPI_ORDER_C or MPI_ORDER_FORTRAN)", order);
  if (!call.ok()) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, *old, &t, form),
                &t, newtype);
}

int resized(const char* name, Form form, MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  api::Call call(name);
  const Datatype* old = check_old(call, oldtype, newtype);
  if (!call.ok()) return call.raise();
  const Datatype* t = nullptr;
  return finish(call, datatypes::resized(*old, lb, extent, &t, form), &t, newtype);
}

constexpr Form kInt = Form::kInt;
constexpr Form kLarge = Form::kLarge;

}  // namespace

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return contiguous("MPI_Type_contiguous", kInt, count, oldtype, newtype);
}
FERRY_ENTRY(Type_contiguous)

extern "C" int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return contiguous("MPI_Type_contiguous_c", kLarge, count, oldtype, newtype);
}
FERRY_ENTRY(Type_contiguous_c)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return vector("MPI_Type_vector", kInt, count, blocklength, stride, oldtype, newtype);
}
FERRY_ENTRY(Type_vector)

extern "C" int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  return vector("MPI_Type_vector_c", kLarge, count, blocklength, stride, oldtype, newtype);
}
FERRY_ENTRY(Type_vector_c)

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                        MPI_Datatype* newtype) {
  return hvector("MPI_Type_create_hvector", kInt, count, blocklength, stride, oldtype, newtype);
}
FERRY_ENTRY(Type_create_hvector)

extern "C" int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return hvector("MPI_Type_create_hvector_c", kLarge, count, blocklength, stride, oldtype, newtype);
}
FERRY_ENTRY(Type_create_hvector_c)

extern "C" int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed("MPI_Type_indexed", kInt, count, blocklengths, blocklengths, displacements, displacements, oldtype,
                 newtype);
}
FERRY_ENTRY(Type_indexed)

extern "C" int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count blocklengths[], const MPI_Count displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed("MPI_Type_indexed_c", kLarge, count, blocklengths, blocklengths, displacements, displacements,
                 oldtype, newtype);
}
FERRY_ENTRY(Type_indexed_c)

extern "C" int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return hindexed("MPI_Type_create_hindexed", kInt, count, blocklengths, blocklengths, displacements, oldtype,
                  newtype);
}
FERRY_ENTRY(Type_create_hindexed)

extern "C" int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count blocklengths[],
                                           const MPI_Count displacements[], MPI_Datatype oldtype,
                                           MPI_Datatype* newtype) {
  return hindexed("MPI_Type_create_hindexed_c", kLarge, count, blocklengths, blocklengths, displacements, oldtype,
                  newtype);
}
FERRY_ENTRY(Type_create_hindexed_c)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed_block("MPI_Type_create_indexed_block", kInt, count, blocklength, displacements, displacements,
                       oldtype, newtype);
}
FERRY_ENTRY(Type_create_indexed_block)

extern "C" int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count displacements[], MPI_Datatype oldtype,
                                                MPI_Datatype* newtype) {
  return indexed_block("MPI_Type_create_indexed_block_c", kLarge, count, blocklength, displacements, displacements,
                       oldtype, newtype);
}
FERRY_ENTRY(Type_create_indexed_block_c)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return hindexed_block("MPI_Type_create_hindexed_block", kInt, count, blocklength, displacements, oldtype, newtype);
}
FERRY_ENTRY(Type_create_hindexed_block)

extern "C" int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                 const MPI_Count displacements[], MPI_Datatype oldtype,
                                                 MPI_Datatype* newtype) {
  return hindexed_block("MPI_Type_create_hindexed_block_c", kLarge, count, blocklength, displacements, oldtype,
                        newtype);
}
FERRY_ENTRY(Type_create_hindexed_block_c)

extern "C" int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                                       const MPI_Datatype types[], MPI_Datatype* newtype) {
  return create_struct("MPI_Type_create_struct", kInt, count, blocklengths, blocklengths, displacements, types,
                       newtype);
}
FERRY_ENTRY(Type_create_struct)

extern "C" int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count blocklengths[],
                                         const MPI_Count displacements[], const MPI_Datatype types[],
                                         MPI_Datatype* newtype) {
  return create_struct("MPI_Type_create_struct_c", kLarge, count, blocklengths, blocklengths, displacements, types,
                       newtype);
}
FERRY_ENTRY(Type_create_struct_c)

extern "C" int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return subarray("MPI_Type_create_subarray", kInt, ndims, sizes, sizes, subsizes, subsizes, starts, starts, order,
                  oldtype, newtype);
}
FERRY_ENTRY(Type_create_subarray)

extern "C" int PMPI_Type_create_subarray_c(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                                           const MPI_Count starts[], int order, MPI_Datatype oldtype,
                                           MPI_Datatype* newtype) {
  return subarray("MPI_Type_create_subarray_c", kLarge, ndims, sizes, sizes, subsizes, subsizes, starts, starts,
                  order, oldtype, newtype);
}
FERRY_ENTRY(Type_create_subarray_c)

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                                       const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  return darray("MPI_Type_create_darray", kInt, size, rank, ndims, gsizes, gsizes, distribs, dargs, psizes, order,
                oldtype, newtype);
}
FERRY_ENTRY(Type_create_darray)

extern "C" int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[],
                                         const int distribs[], const int dargs[], const int psizes[], int order,
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return darray("MPI_Type_create_darray_c", kLarge, size, rank, ndims, gsizes, gsizes, distribs, dargs, psizes, order,
                oldtype, newtype);
}
FERRY_ENTRY(Type_create_darray_c)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  return resized("MPI_Type_create_resized", kInt, oldtype, lb, extent, newtype);
}
FERRY_ENTRY(Type_create_resized)

extern "C" int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                          MPI_Datatype* newtype) {
  return resized("MPI_Type_create_resized_c", kLarge, oldtype, lb, extent, newtype);
}
FERRY_ENTRY(Type_create_resized_c)

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
FERRY_ENTRY(Type_dup)

// --- Removed in MPI-3.0 (MPI-1 names) --------------------------------------------

extern "C" int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  return hvector("MPI_Type_hvector", kInt, count, blocklength, stride, oldtype, newtype);
}
FERRY_ENTRY(Type_hvector)

extern "C" int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  return hindexed("MPI_Type_hindexed", kInt, count, blocklengths, blocklengths, displacements, oldtype, newtype);
}
FERRY_ENTRY(Type_hindexed)

extern "C" int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[],
                                MPI_Datatype* newtype) {
  return create_struct("MPI_Type_struct", kInt, count, blocklengths, blocklengths, displacements, types, newtype);
}
FERRY_ENTRY(Type_struct)
