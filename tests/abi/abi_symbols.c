/*
 * A program built against MPICH's mpi.h that refers to every function and library object of
 * Ferry's mpi.h (abi_interface.h, generated from it) and to every symbol that MPICH's macros expand
 * to. Its test runs it with LD_BIND_NOW=1 and Ferry's lib directory first in LD_LIBRARY_PATH: the
 * loader then resolves every one of them in Ferry's libmpich.so.12 or refuses to start the program.
 *
 * Given the path of Ferry's library, it also checks with dladdr that the functions really come from
 * it (and not from an MPICH installed on the system).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* MPICH keeps these in libmpichfort (c2f08, f082c) or only in its mpi_f08 module (f2f08, f082f),
 * not in libmpich: a program linked with MPICH's libmpich alone cannot refer to them, so they are
 * looked up at run time instead (Ferry's libmpi has them). */
static char looked_up_at_run_time;
#define MPI_Status_c2f08 looked_up_at_run_time
#define MPI_Status_f082c looked_up_at_run_time
#define PMPI_Status_c2f08 looked_up_at_run_time
#define PMPI_Status_f082c looked_up_at_run_time
#define MPI_Status_f2f08 looked_up_at_run_time
#define MPI_Status_f082f looked_up_at_run_time
#define PMPI_Status_f2f08 looked_up_at_run_time
#define PMPI_Status_f082f looked_up_at_run_time

struct symbol {
  const char *name;
  const void *address;
  int is_function;
};

#define FERRY_ABI_FUNCTION(name) {#name, (const void *)&name, 1},
#define FERRY_ABI_OBJECT(name) {#name, (const void *)&name, 0},

static struct symbol symbols[] = {
#include "abi_interface.h"

    /* What MPICH's macros refer to (MPI-3.1 §6.7.2, §17.2.5) */
    {"MPI_DUP_FN", (const void *)MPI_DUP_FN, 1},
    {"MPI_COMM_DUP_FN", (const void *)MPI_COMM_DUP_FN, 1},
    {"MPI_TYPE_DUP_FN", (const void *)MPI_TYPE_DUP_FN, 1},
    {"MPI_WIN_DUP_FN", (const void *)MPI_WIN_DUP_FN, 1},
    /* Objects MPICH's header declares for its Fortran 2008 bindings */
    {"MPIR_F08_MPI_STATUS_IGNORE_OBJ", (const void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ, 0},
    {"MPIR_F08_MPI_STATUSES_IGNORE_OBJ", (const void *)&MPIR_F08_MPI_STATUSES_IGNORE_OBJ, 0},
    {"MPIR_F08_MPI_IN_PLACE", (const void *)&MPIR_F08_MPI_IN_PLACE, 0},
    {"MPIR_F08_MPI_BOTTOM", (const void *)&MPIR_F08_MPI_BOTTOM, 0},
};

enum { kMaxReported = 20 };

int main(int argc, char **argv) {
  const size_t n = sizeof(symbols) / sizeof(symbols[0]);
  char expected[PATH_MAX] = "";
  if (argc > 1 && realpath(argv[1], expected) == NULL) {
    fprintf(stderr, "abi_symbols: cannot resolve %s\n", argv[1]);
    return 1;
  }

  int failures = 0, functions = 0;
  for (size_t i = 0; i < n; i++) {
    if (symbols[i].address == &looked_up_at_run_time)
      symbols[i].address = dlsym(RTLD_DEFAULT, symbols[i].name);
    if (symbols[i].address == NULL) {
      if (failures++ < kMaxReported)
        fprintf(stderr, "abi_symbols: %s resolved to NULL\n", symbols[i].name);
      continue;
    }
    if (!symbols[i].is_function) continue;
    functions++;
    /* Objects are copied into the executable (copy relocations), so only functions tell where they
     * were found. */
    Dl_info info = {0};
    char found[PATH_MAX];
    if (expected[0] != '\0' &&
        (dladdr(symbols[i].address, &info) == 0 || info.dli_fname == NULL ||
         realpath(info.dli_fname, found) == NULL || strcmp(found, expected) != 0)) {
      if (failures++ < kMaxReported)
        fprintf(stderr, "abi_symbols: %s comes from %s, not from %s\n", symbols[i].name,
                info.dli_fname ? info.dli_fname : "nowhere", expected);
    }
  }
  if (failures > kMaxReported) fprintf(stderr, "abi_symbols: ... %d failures in all\n", failures);
  if (failures > 0) return 1;
  printf("abi_symbols: %zu symbols (%d functions) resolved%s%s\n", n, functions,
         expected[0] ? " in " : "", expected);
  return 0;
}
