// Language interoperability (MPI-3.1 §17.2): statuses converted between C and
// Fortran (and between Fortran's two forms, MPI-4.0 §19.3.5), and Fortran 90's parameterized types (MPI-3.1 §17.2.5). Handles need
// no code: with MPICH's ABI a C handle is its Fortran integer (mpi.h's casts).
#include <cstring>

#include "api/api.h"
#include "base/type_f90.h"

using namespace ferry;

// MPICH's Fortran status is MPI_STATUS_SIZE (5) INTEGERs in the C struct's
// order, so MPI_SOURCE, MPI_TAG and MPI_ERROR are at Fortran indices 3, 4 and
// 5; the count and cancelled bit travel as the C struct keeps them. The F08
// type is the same five integers as a derived type.
static_assert(sizeof(MPI_Status) == 5 * sizeof(MPI_Fint), "MPICH's status is five Fortran integers");
static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPICH's F08 status is its C status");

namespace {

bool is_c_ignore(const MPI_Status* s) { return s == MPI_STATUS_IGNORE || s == MPI_STATUSES_IGNORE; }

int convert(const char* name, const void* from, bool from_ignored, const char* from_argument, void* to,
            bool to_ignored, const char* to_argument) {
  api::Call call(name);
  if (!call.not_null(from, from_argument) || !call.not_null(to, to_argument)) return call.raise();
  // MPI-3.1 §17.2.5: the ignore markers are no statuses to read or fill.
  if (from_ignored) call.fail(MPI_ERR_ARG, "%s is a STATUS_IGNORE marker, not a status", from_argument);
  else if (to_ignored) call.fail(MPI_ERR_ARG, "%s is a STATUS_IGNORE marker, not a status", to_argument);
  if (!call.ok()) return call.raise();
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

int f90_type(const char* name, Err (*make)(int, int, const Datatype**), int p, int r, MPI_Datatype* newtype) {
  api::Call call(name);
  if (!call.initialized() || !call.not_null(newtype, "newtype")) return call.raise();
  const Datatype* t = nullptr;
  if (Err e = make(p, r, &t)) return call.result(std::move(e));
  *newtype = t->handle;
  return MPI_SUCCESS;
}

Err integer_kind(int, int r, const Datatype** out) { return datatypes::f90_integer(r, out); }

}  // namespace

extern "C" int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return convert("MPI_Status_c2f", c_status, is_c_ignore(c_status), "c_status", f_status,
                 f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE, "f_status");
}
FERRY_WEAK_ALIAS(Status_c2f)

extern "C" int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return convert("MPI_Status_f2c", f_status, f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE,
                 "f_status", c_status, is_c_ignore(c_status), "c_status");
}
FERRY_WEAK_ALIAS(Status_f2c)

extern "C" int PMPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return convert("MPI_Status_c2f08", c_status, is_c_ignore(c_status), "c_status", f08_status,
                 f08_status == MPI_F08_STATUS_IGNORE || f08_status == MPI_F08_STATUSES_IGNORE, "f08_status");
}
FERRY_WEAK_ALIAS(Status_c2f08)

extern "C" int PMPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return convert("MPI_Status_f082c", f08_status,
                 f08_status == MPI_F08_STATUS_IGNORE || f08_status == MPI_F08_STATUSES_IGNORE, "f08_status", c_status,
                 is_c_ignore(c_status), "c_status");
}
FERRY_WEAK_ALIAS(Status_f082c)

// MPI-4.0 §19.3.5: between the two Fortran statuses, from C (mpi_f08 programs have them as module
// procedures, bindings/fortran/gen_f08.py).
extern "C" int PMPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  return convert("MPI_Status_f2f08", f_status, f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE,
                 "f_status", f08_status,
                 f08_status == MPI_F08_STATUS_IGNORE || f08_status == MPI_F08_STATUSES_IGNORE, "f08_status");
}
FERRY_WEAK_ALIAS(Status_f2f08)

extern "C" int PMPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  return convert("MPI_Status_f082f", f08_status,
                 f08_status == MPI_F08_STATUS_IGNORE || f08_status == MPI_F08_STATUSES_IGNORE, "f08_status", f_status,
                 f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE, "f_status");
}
FERRY_WEAK_ALIAS(Status_f082f)

extern "C" int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  return f90_type("MPI_Type_create_f90_integer", integer_kind, 0, r, newtype);
}
FERRY_WEAK_ALIAS(Type_create_f90_integer)

extern "C" int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return f90_type("MPI_Type_create_f90_real", datatypes::f90_real, p, r, newtype);
}
FERRY_WEAK_ALIAS(Type_create_f90_real)

extern "C" int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return f90_type("MPI_Type_create_f90_complex", datatypes::f90_complex, p, r, newtype);
}
FERRY_WEAK_ALIAS(Type_create_f90_complex)
