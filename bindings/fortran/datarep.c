/*
 * MPI_REGISTER_DATAREP from Fortran (MPI-3.1 §13.5.3): the conversion and extent functions are
 * Fortran subroutines, called through C trampolines whose extra_state is a record of them (kept for
 * the life of the process, as the representation is). MPI_CONVERSION_FN_NULL, the Fortran routine
 * mpif.h names, stands for C's "no conversion" (MPI_CONVERSION_FN_NULL in C too).
 * mpi_f08's MPI_Register_datarep_c (MPI-4.0 §14.5.3) is the same with conversion functions whose
 * count is INTEGER(KIND=MPI_COUNT_KIND) (MPI_Datarep_conversion_function_c), and
 * MPI_CONVERSION_FN_NULL_C for "no conversion".
 */
#include <stdlib.h>

#include "fortran_binding.h"

typedef void FortranConversion(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                               MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierr);
typedef void FortranConversionC(void *userbuf, MPI_Fint *datatype, MPI_Count *count, void *filebuf,
                                MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierr);
typedef void FortranExtent(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra_state, MPI_Fint *ierr);

/* MPI_CONVERSION_FN_NULL (predefined_callbacks.c), under the names a program may pass. */
extern FortranConversion mpi_conversion_fn_null_, pmpi_conversion_fn_null_;
/* mpi_f08's (gen_f08.py: mpi_f08_callbacks), absent when libmpifort is built without Fortran. */
extern FortranConversion __mpi_f08_callbacks_MOD_mpi_conversion_fn_null __attribute__((weak));
extern FortranConversionC __mpi_f08_callbacks_MOD_mpi_conversion_fn_null_c __attribute__((weak));

/* One of the two pairs is set: read and write (MPI_Register_datarep), or read_c and write_c. */
struct FortranDatarep {
  FortranConversion *read;
  FortranConversion *write;
  FortranConversionC *read_c;
  FortranConversionC *write_c;
  FortranExtent *extent;
  MPI_Aint extra_state;
};

static int convert(FortranConversion *fn, void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                   MPI_Offset position, struct FortranDatarep *d) {
  MPI_Fint f_datatype = datatype, f_count = count, ierr = MPI_SUCCESS;
  fn(userbuf, &f_datatype, &f_count, filebuf, &position, &d->extra_state, &ierr);
  return ierr;
}

static int read_trampoline(void *userbuf, MPI_Datatype datatype, int count, void *filebuf, MPI_Offset position,
                           void *extra_state) {
  struct FortranDatarep *d = extra_state;
  return convert(d->read, userbuf, datatype, count, filebuf, position, d);
}

static int write_trampoline(void *userbuf, MPI_Datatype datatype, int count, void *filebuf, MPI_Offset position,
                            void *extra_state) {
  struct FortranDatarep *d = extra_state;
  return convert(d->write, userbuf, datatype, count, filebuf, position, d);
}

static int convert_c(FortranConversionC *fn, void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                     MPI_Offset position, struct FortranDatarep *d) {
  MPI_Fint f_datatype = datatype, ierr = MPI_SUCCESS;
  fn(userbuf, &f_datatype, &count, filebuf, &position, &d->extra_state, &ierr);
  return ierr;
}

static int read_trampoline_c(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                             MPI_Offset position, void *extra_state) {
  struct FortranDatarep *d = extra_state;
  return convert_c(d->read_c, userbuf, datatype, count, filebuf, position, d);
}

static int write_trampoline_c(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                              MPI_Offset position, void *extra_state) {
  struct FortranDatarep *d = extra_state;
  return convert_c(d->write_c, userbuf, datatype, count, filebuf, position, d);
}

static int extent_trampoline(MPI_Datatype datatype, MPI_Aint *extent, void *extra_state) {
  struct FortranDatarep *d = extra_state;
  MPI_Fint f_datatype = datatype, ierr = MPI_SUCCESS;
  d->extent(&f_datatype, extent, &d->extra_state, &ierr);
  return ierr;
}

static int is_null(FortranConversion *fn) {
  return fn == mpi_conversion_fn_null_ || fn == pmpi_conversion_fn_null_ ||
         (fn != NULL && fn == __mpi_f08_callbacks_MOD_mpi_conversion_fn_null);
}

static int is_null_c(FortranConversionC *fn) {
  return fn != NULL && fn == __mpi_f08_callbacks_MOD_mpi_conversion_fn_null_c;
}

/* The record of a registration, or NULL (*ierr set) when out of memory. */
static struct FortranDatarep *new_datarep(const char *datarep, ferry_fortran_length datarep_len, char **c_datarep,
                                          MPI_Fint *ierr) {
  *c_datarep = ferry_fortran_string_in(datarep, datarep_len);
  struct FortranDatarep *d = calloc(1, sizeof *d);
  if (*c_datarep == NULL || d == NULL) {
    free(*c_datarep);
    free(d);
    *ierr = MPI_ERR_NO_MEM;
    return NULL;
  }
  return d;
}

void pmpi_register_datarep_(const char *datarep, FortranConversion *read_conversion_fn,
                            FortranConversion *write_conversion_fn, FortranExtent *dtype_file_extent_fn,
                            MPI_Aint *extra_state, MPI_Fint *ierr, ferry_fortran_length datarep_len) {
  char *c_datarep;
  struct FortranDatarep *d = new_datarep(datarep, datarep_len, &c_datarep, ierr);
  if (d == NULL) return;
  *d = (struct FortranDatarep){.read = read_conversion_fn, .write = write_conversion_fn,
                               .extent = dtype_file_extent_fn, .extra_state = *extra_state};
  *ierr = MPI_Register_datarep(c_datarep, is_null(read_conversion_fn) ? MPI_CONVERSION_FN_NULL : read_trampoline,
                               is_null(write_conversion_fn) ? MPI_CONVERSION_FN_NULL : write_trampoline,
                               extent_trampoline, d);
  if (*ierr != MPI_SUCCESS) free(d);
  free(c_datarep);
}
FERRY_FORTRAN_ALIASES(register_datarep, REGISTER_DATAREP)

/* mpi_f08's MPI_Register_datarep_c (gen_f08.py's PMPIR_Register_datarep_c_f08 calls it); mpif.h has
   no large-count form, so no other name. */
void ferry_f08_register_datarep_c_(const char *datarep, FortranConversionC *read_conversion_fn,
                                   FortranConversionC *write_conversion_fn, FortranExtent *dtype_file_extent_fn,
                                   MPI_Aint *extra_state, MPI_Fint *ierr, ferry_fortran_length datarep_len) {
  char *c_datarep;
  struct FortranDatarep *d = new_datarep(datarep, datarep_len, &c_datarep, ierr);
  if (d == NULL) return;
  *d = (struct FortranDatarep){.read_c = read_conversion_fn, .write_c = write_conversion_fn,
                               .extent = dtype_file_extent_fn, .extra_state = *extra_state};
  *ierr = MPI_Register_datarep_c(c_datarep,
                                 is_null_c(read_conversion_fn) ? MPI_CONVERSION_FN_NULL_C : read_trampoline_c,
                                 is_null_c(write_conversion_fn) ? MPI_CONVERSION_FN_NULL_C : write_trampoline_c,
                                 extent_trampoline, d);
  if (*ierr != MPI_SUCCESS) free(d);
  free(c_datarep);
}
