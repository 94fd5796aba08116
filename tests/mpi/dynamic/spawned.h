/*
 * What every spawn test here shares: the program spawns itself, so main()
 * first asks whether it is a parent or a spawned child, and a spawn of a
 * program that does not exist must fail the same way everywhere.
 */
#ifndef FERRY_TESTS_MPI_DYNAMIC_SPAWNED_H
#define FERRY_TESTS_MPI_DYNAMIC_SPAWNED_H

#include "../mpitest.h"

/* Initializes MPI; in a spawned child runs `child` with the parent
 * intercommunicator, finalizes and exits, so that only parents return. */
static inline void spawned_init(int *argc, char ***argv, void (*child)(MPI_Comm parent)) {
  MPI_Init(argc, argv);
  MPI_Comm parent;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  if (parent == MPI_COMM_NULL) return;
  child(parent);
  MPI_Finalize();
  exit(0);
}

/* Spawns `processes` of a missing program from `root` of MPI_COMM_WORLD
 * (under MPI_ERRORS_RETURN): MPI-3.1 §10.3.2 makes array_of_errcodes an
 * OUT argument of every parent, so each must get MPI_ERR_SPAWN in every
 * entry, MPI_COMM_NULL, and an error string that names the call. */
static inline void spawned_check_missing_program(int processes, int root, int codes[]) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm none = MPI_COMM_NULL;
  int err = MPI_Comm_spawn("/nonexistent/ferry-no-such-program", MPI_ARGV_NULL, processes, MPI_INFO_NULL, root,
                           MPI_COMM_WORLD, &none, codes);
  int cls = -1;
  MPI_Error_class(err, &cls);
  CHECK(cls == MPI_ERR_SPAWN, "spawning a missing program gave class %d, expected MPI_ERR_SPAWN", cls);
  CHECK(none == MPI_COMM_NULL, "a failed spawn returned a communicator");
  for (int i = 0; i < processes; ++i)
    CHECK(codes[i] == MPI_ERR_SPAWN, "array_of_errcodes[%d] = %d after a failed spawn, at rank %d", i, codes[i],
          mt_world_rank());
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, text, &len);
  CHECK(strstr(text, "MPI_Comm_spawn") != NULL, "the message does not name the call: %s", text);
}

#endif
