/*
 * Under the default error handler, MPI_ERRORS_ARE_FATAL, an invalid call
 * ends the whole job (MPI-3.1 §8.3) with a diagnostic that names the call:
 * the last rank sends to a rank that does not exist while the others are
 * blocked in MPI_Recv. Judged from outside by run_mpi_test.sh: non-zero
 * exit status, the name of the call in the output, a time limit, and no
 * rank left running. (This program never prints that name itself.)
 */
#define TEST_NAME "fatal_error"
#include "mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int culprit = size - 1;

  mt_block_all_but(culprit);
  int value = 1;
  const int rc = MPI_Send(&value, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
  fprintf(stderr, "%s: rank %d: FAILED: the invalid send returned %d instead of ending the job\n",
          TEST_NAME, rank, rc);
  return 3;
}
