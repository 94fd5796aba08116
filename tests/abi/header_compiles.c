/*
 * Ferry's public headers must compile cleanly as C99, C11 and C++20 with every warning an error
 * (the test commands add -Wall -Wextra -Werror -pedantic). Besides the declarations, the macros
 * users write most are expanded here, in C and in C++.
 */
#include <mpi.h>
#include <mpio.h>
#include <mpix.h>

#if !defined(FERRY_MPIX) || MPI_VERSION != 4 || MPI_SUBVERSION != 0
#error "mpi.h/mpix.h do not identify MPI-4.0 and Ferry's extensions"
#endif

int header_compiles(MPI_Status *status);

int header_compiles(MPI_Status *status) {
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE_INT, MPI_C_DOUBLE_COMPLEX, MPI_CXX_BOOL, MPI_AINT};
  MPI_Comm_copy_attr_function *copy = MPI_COMM_DUP_FN;
  MPI_Comm_delete_attr_function *del = MPI_COMM_NULL_DELETE_FN;
  MPI_Copy_function *old_copy = MPI_NULL_COPY_FN;
  void *places[] = {MPI_BOTTOM, MPI_IN_PLACE};
  MPI_Status *ignored[] = {MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE};
  int *errcodes = MPI_ERRCODES_IGNORE;
  MPI_Fint fcomm = MPI_Comm_c2f(comm);
  (void)types;
  (void)copy;
  (void)del;
  (void)old_copy;
  (void)places;
  (void)ignored;
  (void)errcodes;
  (void)MPI_UNWEIGHTED;
  (void)MPI_F_STATUS_IGNORE;
  (void)MPI_T_PVAR_ALL_HANDLES;
  return status->MPI_SOURCE + MPI_Comm_f2c(fcomm) + MPI_Aint_add(0, 1) > 0 ? MPI_SUCCESS
                                                                       : MPI_ERR_OTHER;
}
