/* hello: every rank says who it is and where it runs.
 *
 *   mpicc -o hello hello.c
 *   mpirun -n 4 ./hello
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);

  int rank, size, name_len;
  char name[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(name, &name_len);

  printf("Hello from rank %d of %d on %s\n", rank, size, name);

  MPI_Finalize();
  return 0;
}
