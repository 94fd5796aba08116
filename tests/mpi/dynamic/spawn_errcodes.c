/*
 * array_of_errcodes of MPI_Comm_spawn and MPI_Comm_spawn_multiple
 * (MPI-3.1 §10.3.2, §10.3.3): an OUT argument of every process of the
 * parent group, not one of the arguments "significant only at root", so
 * every parent gets one code per process asked for (MPICH fills it at every
 * process; mpi4py's test_spawn testErrcodes and testErrcodesMultiple check
 * it at every rank). The root is the last rank, so that rank 0 is one of the
 * others when there are several. Entries past the processes asked for are
 * left alone. A spawn that fails gives MPI_ERR_SPAWN in every entry at every
 * parent.
 */
#define TEST_NAME "spawn_errcodes"
#include "spawned.h"

#define SENTINEL (-7)
#define SLOTS 8

static int rank, size;

static void check_codes(const int codes[], int asked, int expected, const char *what) {
  for (int i = 0; i < asked; ++i)
    CHECK(codes[i] == expected, "%s: array_of_errcodes[%d] = %d at rank %d, expected %d", what, i, codes[i], rank,
          expected);
  for (int i = asked; i < SLOTS; ++i)
    CHECK(codes[i] == SENTINEL, "%s: array_of_errcodes[%d], past the %d processes asked for, was written (%d)",
          what, i, asked, codes[i]);
}

static void reset(int codes[]) {
  for (int i = 0; i < SLOTS; ++i) codes[i] = SENTINEL;
}

/* The children meet the parents once and leave. */
static void child(MPI_Comm parent) {
  CHECK_MPI(MPI_Barrier(parent));
  CHECK_MPI(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv) {
  spawned_init(&argc, &argv, child);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int root = size - 1;
  int codes[SLOTS];
  MPI_Comm children;

  /* MPI_Comm_spawn: 2 processes; every parent passes the same arguments
   * (as mpi4py does). */
  reset(codes);
  CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, root, MPI_COMM_WORLD, &children, codes));
  CHECK_MPI(MPI_Barrier(children));
  CHECK_MPI(MPI_Comm_disconnect(&children));
  check_codes(codes, 2, MPI_SUCCESS, "MPI_Comm_spawn");

  /* The arguments only at the root: the others still get the codes. */
  reset(codes);
  if (rank == root)
    CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, root, MPI_COMM_WORLD, &children, codes));
  else
    CHECK_MPI(MPI_Comm_spawn(NULL, MPI_ARGV_NULL, -1, MPI_INFO_NULL, root, MPI_COMM_WORLD, &children, codes));
  CHECK_MPI(MPI_Barrier(children));
  CHECK_MPI(MPI_Comm_disconnect(&children));
  check_codes(codes, 1, MPI_SUCCESS, "MPI_Comm_spawn, arguments at the root only");

  /* MPI_Comm_spawn_multiple: 1 + 2 processes, codes in that order. */
  reset(codes);
  char *commands[2] = {argv[0], argv[0]};
  int maxprocs[2] = {1, 2};
  MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
  CHECK_MPI(MPI_Comm_spawn_multiple(2, commands, MPI_ARGVS_NULL, maxprocs, infos, root, MPI_COMM_WORLD, &children,
                                    codes));
  CHECK_MPI(MPI_Barrier(children));
  CHECK_MPI(MPI_Comm_disconnect(&children));
  check_codes(codes, 3, MPI_SUCCESS, "MPI_Comm_spawn_multiple");

  /* A program that does not exist: MPI_ERR_SPAWN in every entry, everywhere. */
  reset(codes);
  spawned_check_missing_program(2, root, codes);
  check_codes(codes, 2, MPI_ERR_SPAWN, "MPI_Comm_spawn of a missing program");

  mt_pass();
  MPI_Finalize();
  return 0;
}
