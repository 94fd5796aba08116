/* sleeper SECONDS: every rank initializes MPI and sleeps, so that a test can
 * act on a running job (kill its daemon, its mpirun, interrupt it). */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 60);
  MPI_Finalize();
  return 0;
}
