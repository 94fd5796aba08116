/*
 * MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from Fortran (MPI-3.1 §10.3.2, §10.3.3): the commands
 * and arguments are CHARACTER arrays of one length, an argument list ends at its first blank entry,
 * and MPI_ARGV_NULL / MPI_ARGVS_NULL / MPI_ERRCODES_IGNORE arrive as common-block addresses. Only the
 * root reads them, as in C: elsewhere they need not be valid.
 */
#include <stdlib.h>
#include <string.h>

#include "fortran_binding.h"

static int is_blank(const char *text, ferry_fortran_length length) {
  for (ferry_fortran_length i = 0; i < length; i++) {
    if (text[i] != ' ') return 0;
  }
  return 1;
}

static void free_argv(char **argv) {
  if (argv == NULL) return;
  for (char **a = argv; *a != NULL; a++) free(*a);
  free(argv);
}

/* A C argv (NULL-terminated, each entry a copy) from the entries first, first + stride, ... of a
 * CHARACTER array, up to the first blank one. Returns NULL when memory runs out. */
static char **c_argv(const char *array, size_t first, size_t stride, ferry_fortran_length length, int strip) {
  size_t n = 0;
  while (!is_blank(array + (first + n * stride) * length, length)) n++;
  char **argv = calloc(n + 1, sizeof *argv);
  if (argv == NULL) return NULL;
  for (size_t i = 0; i < n; i++) {
    const char *text = array + (first + i * stride) * length;
    argv[i] = strip ? ferry_fortran_string_in_stripped(text, length) : ferry_fortran_string_in(text, length);
    if (argv[i] == NULL) {
      free_argv(argv);
      return NULL;
    }
  }
  return argv;
}

static int is_root(MPI_Fint root, MPI_Fint comm) {
  int rank = -1;
  return MPI_Comm_rank((MPI_Comm)comm, &rank) == MPI_SUCCESS && rank == root;
}

/* MPICH strips an argument's leading blanks for mpif.h and the mpi module (its f77/spawn/spawnargvf
 * expects " Ss" to arrive as "Ss") and keeps them for mpi_f08 (f08/spawn/spawnargvf90 expects
 * " Ss"): strip says which. */
static void spawn(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info, MPI_Fint *root,
                  MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                  ferry_fortran_length command_len, ferry_fortran_length argv_len, int strip) {
  char *c_command = NULL;
  char **c_args = MPI_ARGV_NULL;
  int ok = 1;
  if (is_root(*root, *comm)) {
    c_command = ferry_fortran_string_in(command, command_len);
    ok = c_command != NULL;
    if (ok && argv != mpiprivc_.argv_null && argv != __mpi_f08_link_constants_MOD_mpi_argv_null) {
      c_args = c_argv(argv, 0, 1, argv_len, strip);
      ok = c_args != NULL;
    }
  }
  if (ok) {
    *ierr = MPI_Comm_spawn(c_command, c_args, *maxprocs, (MPI_Info)*info, *root, (MPI_Comm)*comm,
                           (MPI_Comm *)intercomm, ferry_fortran_errcodes(array_of_errcodes));
  } else {
    *ierr = MPI_ERR_NO_MEM;
  }
  free(c_command);
  free_argv(c_args);
}

void pmpi_comm_spawn_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info, MPI_Fint *root,
                      MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                      ferry_fortran_length command_len, ferry_fortran_length argv_len) {
  spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes, ierr, command_len, argv_len, 1);
}
FERRY_FORTRAN_ALIASES(comm_spawn, COMM_SPAWN)

/* mpi_f08's (gen_f08.py calls it; not exported). */
void ferry_f08_comm_spawn_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                           MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                           MPI_Fint *ierr, ferry_fortran_length command_len, ferry_fortran_length argv_len) {
  spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes, ierr, command_len, argv_len, 0);
}

static void spawn_multiple(MPI_Fint *count, const char *array_of_commands, const char *array_of_argv,
                           MPI_Fint *array_of_maxprocs, MPI_Fint *array_of_info, MPI_Fint *root, MPI_Fint *comm,
                           MPI_Fint *intercomm, MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                           ferry_fortran_length commands_len, ferry_fortran_length argv_len, int strip) {
  int n = *count > 0 ? *count : 0;
  char **commands = NULL;
  char ***argvs = MPI_ARGVS_NULL;
  int ok = 1;
  if (is_root(*root, *comm)) {
    commands = calloc((size_t)n + 1, sizeof *commands);
    ok = commands != NULL;
    for (int i = 0; ok && i < n; i++) {
      commands[i] = ferry_fortran_string_in(array_of_commands + (size_t)i * commands_len, commands_len);
      ok = commands[i] != NULL;
    }
    if (ok && array_of_argv != mpiprivc_.argvs_null &&
        array_of_argv != __mpi_f08_link_constants_MOD_mpi_argvs_null) {
      /* ARRAY_OF_ARGV(COUNT, *): command i's arguments are (i, 1), (i, 2), ..., count apart. */
      argvs = calloc((size_t)n + 1, sizeof *argvs);
      ok = argvs != NULL;
      for (int i = 0; ok && i < n; i++) {
        argvs[i] = c_argv(array_of_argv, (size_t)i, (size_t)n, argv_len, strip);
        ok = argvs[i] != NULL;
      }
    }
  }
  if (ok) {
    *ierr = MPI_Comm_spawn_multiple(*count, commands, argvs, array_of_maxprocs, (MPI_Info *)array_of_info, *root,
                                    (MPI_Comm)*comm, (MPI_Comm *)intercomm,
                                    ferry_fortran_errcodes(array_of_errcodes));
  } else {
    *ierr = MPI_ERR_NO_MEM;
  }
  if (commands != NULL) {
    free_argv(commands);
  }
  if (argvs != MPI_ARGVS_NULL) {
    for (int i = 0; i < n; i++) free_argv(argvs[i]);
    free(argvs);
  }
}

void pmpi_comm_spawn_multiple_(MPI_Fint *count, const char *array_of_commands, const char *array_of_argv,
                               MPI_Fint *array_of_maxprocs, MPI_Fint *array_of_info, MPI_Fint *root, MPI_Fint *comm,
                               MPI_Fint *intercomm, MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                               ferry_fortran_length commands_len, ferry_fortran_length argv_len) {
  spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm, intercomm,
                 array_of_errcodes, ierr, commands_len, argv_len, 1);
}
FERRY_FORTRAN_ALIASES(comm_spawn_multiple, COMM_SPAWN_MULTIPLE)

void ferry_f08_comm_spawn_multiple_(MPI_Fint *count, const char *array_of_commands, const char *array_of_argv,
                                    MPI_Fint *array_of_maxprocs, MPI_Fint *array_of_info, MPI_Fint *root,
                                    MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes, MPI_Fint *ierr,
                                    ferry_fortran_length commands_len, ferry_fortran_length argv_len) {
  spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm, intercomm,
                 array_of_errcodes, ierr, commands_len, argv_len, 0);
}
