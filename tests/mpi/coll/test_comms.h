/*
 * The communicators the data-movement tests run on: MPI_COMM_WORLD,
 * MPI_COMM_SELF, and a split of MPI_COMM_WORLD into even and odd world
 * ranks numbered in reverse order (so that communicator ranks differ from
 * world ranks, and the halves run their collectives side by side).
 */
#ifndef FERRY_TESTS_MPI_COLL_TEST_COMMS_H
#define FERRY_TESTS_MPI_COLL_TEST_COMMS_H

static inline void for_each_comm(void (*run)(MPI_Comm comm, const char *name)) {
  int rank, size;
  MPI_Comm split;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  run(MPI_COMM_SELF, "MPI_COMM_SELF");
  if (size >= 3) {
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
    run(split, rank % 2 ? "odd ranks, reversed" : "even ranks, reversed");
    MPI_Comm_free(&split);
  }
}

#endif
