/*
 * The storage behind mpif.h's sentinels, and the character conversions every binding uses.
 *
 * The common blocks are defined here with MPICH's names and sizes (fortran_binding.h explains them).
 * When a program built with mpif.h is linked, its references to /MPIPRIV1/ and the others bind to
 * these definitions or, if the linker copies them into the executable, every reference (ours too,
 * through the GOT, since the symbols are exported and not -Bsymbolic) binds to that copy: either way
 * the program and the bindings agree on the addresses, which is all a sentinel is.
 */
#include <stdlib.h>
#include <string.h>

#include "fortran_binding.h"

/* Aligned as gfortran aligns common blocks, so that a program's copy of the same size fits. */
__attribute__((aligned(32))) struct ferry_mpipriv1 mpipriv1_;
__attribute__((aligned(16))) struct ferry_mpipriv2 mpipriv2_;
struct ferry_mpiprivc mpiprivc_;
MPI_Fint mpifcmb5_;
MPI_Fint mpifcmb9_;

_Static_assert(sizeof(struct ferry_mpipriv1) == 28, "MPICH's /MPIPRIV1/ is 7 INTEGERs");
_Static_assert(sizeof(struct ferry_mpipriv2) == 24, "MPICH's /MPIPRIV2/ is 6 INTEGERs");
_Static_assert(sizeof(struct ferry_mpiprivc) == 2, "MPICH's /MPIPRIVC/ is 2 characters");

char *ferry_fortran_string_in(const char *text, ferry_fortran_length length) {
  while (length > 0 && text[length - 1] == ' ') length--;
  char *copy = malloc(length + 1);
  if (copy == NULL) return NULL;
  memcpy(copy, text, length);
  copy[length] = '\0';
  return copy;
}

char *ferry_fortran_string_in_stripped(const char *text, ferry_fortran_length length) {
  while (length > 0 && text[0] == ' ') {
    text++;
    length--;
  }
  return ferry_fortran_string_in(text, length);
}

void ferry_fortran_string_out(const char *c_string, char *text, ferry_fortran_length length) {
  size_t n = strlen(c_string);
  if (n > length) n = length;
  memcpy(text, c_string, n);
  memset(text + n, ' ', length - n);
}
