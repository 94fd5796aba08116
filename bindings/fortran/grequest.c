/*
 * MPI_GREQUEST_START from Fortran (MPI-3.1 §12.2): the query, free and cancel callbacks are Fortran
 * subroutines (everything by reference, an error argument, extra_state an INTEGER(KIND=
 * MPI_ADDRESS_KIND)), so the request is started with C trampolines whose extra_state is a record of
 * them. The free callback is the last one MPI calls for a request, so the record goes with it.
 * The callbacks get the program's own extra_state variable, as with MPICH, whose test suite
 * (f77/pt2pt/greqf) counts on a free callback's change to it being seen by the program.
 */
#include <stdlib.h>

#include "fortran_binding.h"

typedef void FortranQuery(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierr);
typedef void FortranFree(MPI_Aint *extra_state, MPI_Fint *ierr);
typedef void FortranCancel(MPI_Aint *extra_state, MPI_Fint *complete, MPI_Fint *ierr);

struct FortranGrequest {
  FortranQuery *query;
  FortranFree *free_fn;
  FortranCancel *cancel;
  MPI_Aint *extra_state;
};

static int query_trampoline(void *extra_state, MPI_Status *status) {
  struct FortranGrequest *g = extra_state;
  MPI_Fint ierr = MPI_SUCCESS;
  g->query(g->extra_state, (MPI_Fint *)status, &ierr);
  return ierr;
}

static int free_trampoline(void *extra_state) {
  struct FortranGrequest *g = extra_state;
  MPI_Fint ierr = MPI_SUCCESS;
  g->free_fn(g->extra_state, &ierr);
  free(g);
  return ierr;
}

static int cancel_trampoline(void *extra_state, int complete) {
  struct FortranGrequest *g = extra_state;
  MPI_Fint f_complete = complete ? FERRY_FORTRAN_TRUE : FERRY_FORTRAN_FALSE, ierr = MPI_SUCCESS;
  g->cancel(g->extra_state, &f_complete, &ierr);
  return ierr;
}

void pmpi_grequest_start_(FortranQuery *query_fn, FortranFree *free_fn, FortranCancel *cancel_fn,
                          MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierr) {
  struct FortranGrequest *g = malloc(sizeof *g);
  if (g == NULL) {
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  *g = (struct FortranGrequest){query_fn, free_fn, cancel_fn, extra_state};
  *ierr = MPI_Grequest_start(query_trampoline, free_trampoline, cancel_trampoline, g, (MPI_Request *)request);
  if (*ierr != MPI_SUCCESS) free(g);
}
FERRY_FORTRAN_ALIASES(grequest_start, GREQUEST_START)
