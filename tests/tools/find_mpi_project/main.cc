#include <mpi.h>

#include <cstdio>

int main(int argc, char **argv) {
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::printf("rank %d\n", rank);
  MPI_Finalize();
  return 0;
}
