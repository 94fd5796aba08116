/* Preloaded by tests/clients/scalapack.sh: works around a bug of ScaLAPACK
 * 2.2.1 (Debian's), not of MPI. PSLACON and PDLACON, the iterative condition
 * estimators, copy their output argument EST into their saved ESTWORK(1) on
 * every entry ("ESTWORK( 1 ) = EST") before ever setting EST, and later take
 * ESTWORK(1) as the previous estimate (ESTOLD) to decide whether to go on
 * iterating. Their callers (P?GERFS, P?PORFS, ...) pass a local they never
 * set, so the decision depends on whatever the stack held; when that differs
 * between ranks, the process columns' copies of the estimator branch
 * differently and the ranks call different routines and collectives.
 * ScaLAPACK fixed it upstream by setting EST to zero on entry (commit aed609a,
 * in 2.2.3); this does the same from outside, before calling the library's
 * own routine. The complex PCLACON and PZLACON of 2.2.1 keep their estimate
 * in EST itself and set it before reading it, so they are left alone (they
 * also take no ISGN argument). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* Fortran: P?LACON(N, V, IV, JV, DESCV, X, IX, JX, DESCX, ISGN, EST, KASE). */
#define ZERO_EST_THEN_CALL(name, real_type)                                                         \
  typedef void (*name##_fn)(int*, void*, int*, int*, int*, void*, int*, int*, int*, int*, real_type*, \
                            int*);                                                                 \
  void name(int* n, void* v, int* iv, int* jv, int* descv, void* x, int* ix, int* jx, int* descx,    \
            int* isgn, real_type* est, int* kase) {                                                \
    static name##_fn library;                                                                      \
    if (library == NULL) library = (name##_fn)dlsym(RTLD_NEXT, #name);                             \
    if (library == NULL) {                                                                         \
      fprintf(stderr, "scalapack_lacon_est_zero: " #name " not found in the loaded libraries\n");   \
      abort();                                                                                     \
    }                                                                                              \
    *est = 0;                                                                                      \
    library(n, v, iv, jv, descv, x, ix, jx, descx, isgn, est, kase);                               \
  }

ZERO_EST_THEN_CALL(pslacon_, float)
ZERO_EST_THEN_CALL(pdlacon_, double)
