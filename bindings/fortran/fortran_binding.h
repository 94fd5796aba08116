/*
 * What every Fortran binding of libmpifort shares: the names it is exported under, the common blocks
 * through which mpif.h passes MPI_BOTTOM and the other sentinels, and the conversions of Fortran's
 * arguments (MPI-4.0 §19.1). The generated bindings (gen_f77.py) and the hand-written ones include it.
 *
 * With MPICH's ABI most arguments need no conversion: a handle is its Fortran INTEGER (MPI_Fint is
 * int), a Fortran status is the C struct's five integers in the same order, and gfortran's LOGICAL is
 * 0 or 1 as C's truth values are. What does need it: the sentinels (addresses of common-block
 * members), character arguments (blank-padded, with hidden lengths), MPI_File (a pointer in C), and
 * the INTEGER/MPI_Aint mismatches of MPI-1's removed routines.
 */
#ifndef FERRY_FORTRAN_BINDING_H
#define FERRY_FORTRAN_BINDING_H

#include <stddef.h>

#include "mpi.h"

/* gfortran (8 and later) passes the length of each CHARACTER argument as a size_t after all the
 * others, in the order of the arguments. */
typedef size_t ferry_fortran_length;

/* Fortran's LOGICAL values as gfortran stores them. */
#define FERRY_FORTRAN_TRUE 1
#define FERRY_FORTRAN_FALSE 0

/* Every binding is defined as pmpi_x_ and answers to MPICH's other seven spellings as weak aliases
 * (mpi_x_, mpi_x__, mpi_x, MPI_X, pmpi_x__, pmpi_x, PMPI_X), so that a profiling library can define
 * mpi_x_ and call pmpi_x_, and programs built with any of gfortran's naming options link. */
#define FERRY_PRAGMA(text) _Pragma(#text)
#define FERRY_FORTRAN_WEAK(alias, target) FERRY_PRAGMA(weak alias = target)
#define FERRY_FORTRAN_ALIASES(lower, UPPER)                                         \
  FERRY_FORTRAN_WEAK(mpi_##lower##_, pmpi_##lower##_)                               \
  FERRY_FORTRAN_WEAK(mpi_##lower##__, pmpi_##lower##_)                              \
  FERRY_FORTRAN_WEAK(mpi_##lower, pmpi_##lower##_)                                  \
  FERRY_FORTRAN_WEAK(MPI_##UPPER, pmpi_##lower##_)                                  \
  FERRY_FORTRAN_WEAK(pmpi_##lower##__, pmpi_##lower##_)                             \
  FERRY_FORTRAN_WEAK(pmpi_##lower, pmpi_##lower##_)                                 \
  FERRY_FORTRAN_WEAK(PMPI_##UPPER, pmpi_##lower##_)

/* The common blocks of mpif.h, laid out as MPICH's mpif.h declares them (its names and sizes are
 * the ABI: a program built with MPICH's mpif.h passes addresses inside these blocks):
 *   COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE(MPI_STATUS_SIZE)
 *   COMMON /MPIPRIV2/ MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1), MPI_ERRCODES_IGNORE(1)
 *   COMMON /MPIPRIVC/ MPI_ARGVS_NULL(1,1), MPI_ARGV_NULL(1)          (CHARACTER*1)
 *   COMMON /MPIFCMB5/ MPI_UNWEIGHTED
 *   COMMON /MPIFCMB9/ MPI_WEIGHTS_EMPTY
 * libmpifort defines them (common_blocks.c); a program's own copy, if the linker gives it one, is
 * the one every reference resolves to, so the bindings compare against these symbols' addresses. */
struct ferry_mpipriv1 {
  MPI_Fint bottom;
  MPI_Fint in_place;
  MPI_Fint status_ignore[MPI_F_STATUS_SIZE];
};
struct ferry_mpipriv2 {
  MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE];
  MPI_Fint errcodes_ignore[1];
};
struct ferry_mpiprivc {
  char argvs_null[1];
  char argv_null[1];
};
extern struct ferry_mpipriv1 mpipriv1_;
extern struct ferry_mpipriv2 mpipriv2_;
extern struct ferry_mpiprivc mpiprivc_;
extern MPI_Fint mpifcmb5_;
extern MPI_Fint mpifcmb9_;

/* mpi_f08's sentinels (mpi_f08_link_constants, gen_f08.py), under MPICH's names: C objects for the
 * statuses, module variables for the others. mpi_f08's bindings pass them on to these bindings as
 * they are. Weak: libmpifort built without a Fortran compiler has no mpi_f08, and then their
 * addresses are null, which no program passes for an array. */
extern MPI_Fint MPIR_F08_MPI_STATUS_IGNORE_OBJ[MPI_F_STATUS_SIZE] __attribute__((weak));
extern MPI_Fint MPIR_F08_MPI_STATUSES_IGNORE_OBJ[MPI_F_STATUS_SIZE] __attribute__((weak));
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_errcodes_ignore[1] __attribute__((weak));
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_unweighted[1] __attribute__((weak));
extern MPI_Fint __mpi_f08_link_constants_MOD_mpi_weights_empty[1] __attribute__((weak));
extern char __mpi_f08_link_constants_MOD_mpi_argv_null[1] __attribute__((weak));
extern char __mpi_f08_link_constants_MOD_mpi_argvs_null[1] __attribute__((weak));

/* A choice buffer: MPI_BOTTOM and MPI_IN_PLACE arrive as the addresses of their common-block
 * members (MPI-4.0 §19.1.2). */
static inline void *ferry_fortran_buffer(const void *buffer) {
  if (buffer == &mpipriv1_.bottom) return MPI_BOTTOM;
  if (buffer == &mpipriv1_.in_place) return MPI_IN_PLACE;
  return (void *)buffer;
}

static inline MPI_Status *ferry_fortran_status(const MPI_Fint *status) {
  if (status == mpipriv1_.status_ignore || status == MPIR_F08_MPI_STATUS_IGNORE_OBJ) return MPI_STATUS_IGNORE;
  return (MPI_Status *)status;
}

static inline MPI_Status *ferry_fortran_statuses(const MPI_Fint *statuses) {
  if (statuses == mpipriv2_.statuses_ignore || statuses == MPIR_F08_MPI_STATUSES_IGNORE_OBJ) {
    return MPI_STATUSES_IGNORE;
  }
  return (MPI_Status *)statuses;
}

static inline int *ferry_fortran_errcodes(MPI_Fint *errcodes) {
  if (errcodes == mpipriv2_.errcodes_ignore || errcodes == __mpi_f08_link_constants_MOD_mpi_errcodes_ignore) {
    return MPI_ERRCODES_IGNORE;
  }
  return errcodes;
}

static inline int *ferry_fortran_weights(const MPI_Fint *weights) {
  if (weights == &mpifcmb5_ || weights == __mpi_f08_link_constants_MOD_mpi_unweighted) return MPI_UNWEIGHTED;
  if (weights == &mpifcmb9_ || weights == __mpi_f08_link_constants_MOD_mpi_weights_empty) return MPI_WEIGHTS_EMPTY;
  return (int *)weights;
}

static inline int ferry_fortran_logical_in(const MPI_Fint *value) { return *value != 0; }

/* Characters (MPI-4.0 §19.1): trailing blanks of an input string are not part of it; an output
 * string is padded with blanks. ferry_fortran_string_in returns a NUL-terminated copy to free, or
 * NULL when memory runs out. */
char *ferry_fortran_string_in(const char *text, ferry_fortran_length length);
/* The same without leading blanks either: info keys and values (MPI-4.0 §10: "leading and trailing
 * blanks are stripped" in Fortran) and spawn's arguments (as MPICH does). */
char *ferry_fortran_string_in_stripped(const char *text, ferry_fortran_length length);
void ferry_fortran_string_out(const char *c_string, char *text, ferry_fortran_length length);

#endif /* FERRY_FORTRAN_BINDING_H */
