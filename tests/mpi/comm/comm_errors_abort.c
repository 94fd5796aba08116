/*
 * MPI_ERRORS_ABORT (MPI-4.0 §9.3): an error on a communicator that has it
 * ends the job, with a message that names the call and the handler.
 */
#define TEST_NAME "comm_errors_abort"
#include "../mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT);
  int rank, buf = 0;
  MPI_Comm_rank(dup, &rank);
  MPI_Barrier(dup);
  if (rank == 0) MPI_Send(&buf, 1, MPI_INT, 999, 0, dup); /* invalid rank: the job ends here */
  MPI_Barrier(dup);
  printf("%s: rank %d: FAILED: still running after MPI_ERRORS_ABORT\n", TEST_NAME, rank);
  MPI_Finalize();
  return 0;
}
