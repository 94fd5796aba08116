/*
 * The predefined callbacks as Fortran routines (mpif.h declares them EXTERNAL; MPI-4.0 §7.7.2,
 * §14.5.3): a program passes them to MPI_COMM_CREATE_KEYVAL and MPI_REGISTER_DATAREP, where the
 * bindings recognize them (attributes.c, datarep.c), or calls them from its own callbacks.
 */
#include "fortran_binding.h"

/* mpi.h defines the C callbacks under the same upper-case names (MPI_COMM_DUP_FN, ...); the weak
 * aliases below must name the Fortran routines, not expand to C's. */
#undef MPI_NULL_COPY_FN
#undef MPI_NULL_DELETE_FN
#undef MPI_DUP_FN
#undef MPI_COMM_NULL_COPY_FN
#undef MPI_COMM_NULL_DELETE_FN
#undef MPI_COMM_DUP_FN
#undef MPI_TYPE_NULL_COPY_FN
#undef MPI_TYPE_NULL_DELETE_FN
#undef MPI_TYPE_DUP_FN
#undef MPI_WIN_NULL_COPY_FN
#undef MPI_WIN_NULL_DELETE_FN
#undef MPI_WIN_DUP_FN
#undef MPI_CONVERSION_FN_NULL

/* Copy callbacks get the old object, the keyval, extra_state, the value and the place of the copy,
 * and answer whether to copy; delete callbacks the object, keyval, value and extra_state. Value is
 * INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for MPI-1's MPI_NULL_COPY_FN and friends. */
#define FERRY_NULL_COPY(lower, UPPER, Value)                                                 \
  void pmpi_##lower##_(MPI_Fint *oldobj, MPI_Fint *keyval, Value *extra_state, Value *value_in,    \
                       Value *value_out, MPI_Fint *flag, MPI_Fint *ierr) {                         \
    (void)oldobj, (void)keyval, (void)extra_state, (void)value_in, (void)value_out;                \
    *flag = FERRY_FORTRAN_FALSE;                                                                   \
    *ierr = MPI_SUCCESS;                                                                           \
  }                                                                                                \
  FERRY_FORTRAN_ALIASES(lower, UPPER)
#define FERRY_DUP(lower, UPPER, Value)                                                       \
  void pmpi_##lower##_(MPI_Fint *oldobj, MPI_Fint *keyval, Value *extra_state, Value *value_in,    \
                       Value *value_out, MPI_Fint *flag, MPI_Fint *ierr) {                         \
    (void)oldobj, (void)keyval, (void)extra_state;                                                 \
    *value_out = *value_in;                                                                        \
    *flag = FERRY_FORTRAN_TRUE;                                                                    \
    *ierr = MPI_SUCCESS;                                                                           \
  }                                                                                                \
  FERRY_FORTRAN_ALIASES(lower, UPPER)
#define FERRY_NULL_DELETE(lower, UPPER, Value)                                                     \
  void pmpi_##lower##_(MPI_Fint *obj, MPI_Fint *keyval, Value *value, Value *extra_state,          \
                       MPI_Fint *ierr) {                                                           \
    (void)obj, (void)keyval, (void)value, (void)extra_state;                                       \
    *ierr = MPI_SUCCESS;                                                                           \
  }                                                                                                \
  FERRY_FORTRAN_ALIASES(lower, UPPER)

FERRY_NULL_COPY(comm_null_copy_fn, COMM_NULL_COPY_FN, MPI_Aint)
FERRY_DUP(comm_dup_fn, COMM_DUP_FN, MPI_Aint)
FERRY_NULL_DELETE(comm_null_delete_fn, COMM_NULL_DELETE_FN, MPI_Aint)
FERRY_NULL_COPY(type_null_copy_fn, TYPE_NULL_COPY_FN, MPI_Aint)
FERRY_DUP(type_dup_fn, TYPE_DUP_FN, MPI_Aint)
FERRY_NULL_DELETE(type_null_delete_fn, TYPE_NULL_DELETE_FN, MPI_Aint)
FERRY_NULL_COPY(win_null_copy_fn, WIN_NULL_COPY_FN, MPI_Aint)
FERRY_DUP(win_dup_fn, WIN_DUP_FN, MPI_Aint)
FERRY_NULL_DELETE(win_null_delete_fn, WIN_NULL_DELETE_FN, MPI_Aint)
FERRY_NULL_COPY(null_copy_fn, NULL_COPY_FN, MPI_Fint)
FERRY_DUP(dup_fn, DUP_FN, MPI_Fint)
FERRY_NULL_DELETE(null_delete_fn, NULL_DELETE_FN, MPI_Fint)


/* MPI_CONVERSION_FN_NULL: "no conversion" to MPI_REGISTER_DATAREP; called, it converts nothing. */
void pmpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                              MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierr) {
  (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra_state;
  *ierr = MPI_SUCCESS;
}
FERRY_FORTRAN_ALIASES(conversion_fn_null, CONVERSION_FN_NULL)
