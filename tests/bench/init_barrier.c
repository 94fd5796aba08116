/*
 * init_barrier: the trivial program whose wall time scripts/bench measures
 * as launch cost: mpirun, MPI_Init, one MPI_Barrier, MPI_Finalize, exit.
 * It prints nothing; the timing is the launcher's.
 */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
