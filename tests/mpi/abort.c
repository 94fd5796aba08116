/*
 * MPI_Abort from one rank ends the whole job with the given error code
 * (MPI-3.1 §8.7), even though the other ranks are blocked in an MPI_Recv
 * that nothing will ever match. Judged from outside by run_mpi_test.sh:
 * mpirun's exit status must be the code, within a time limit, and no rank
 * may be left running.
 *
 * Usage: abort CODE first|last   (which rank calls MPI_Abort)
 */
#define TEST_NAME "abort"
#include "mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc == 3, "usage: abort CODE first|last");
  const int code = atoi(argv[1]);
  const int aborter = strcmp(argv[2], "first") == 0 ? 0 : size - 1;

  mt_block_all_but(aborter);
  /* Output written before the abort must still reach mpirun's output. */
  printf("%s: rank %d of %d aborts with code %d\n", TEST_NAME, rank, size, code);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, code);
  fprintf(stderr, "%s: rank %d: FAILED: MPI_Abort returned\n", TEST_NAME, rank);
  return 3;
}
