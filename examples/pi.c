/* pi: computes pi as the integral of 4 / (1 + x^2) over [0, 1] with the
 * midpoint rule. Each rank sums every size-th interval; the partial sums
 * are then added up at rank 0 with point-to-point messages (what
 * MPI_Reduce would do in one call).
 *
 *   mpicc -o pi pi.c
 *   mpirun -n 4 ./pi [intervals]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);

  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = argc > 1 ? atol(argv[1]) : 10000000;
  const double pi_ref = 3.141592653589793238462643;

  const double start = MPI_Wtime();
  const double h = 1.0 / (double)n;
  double sum = 0.0;
  for (long i = rank; i < n; i += size) {
    const double x = h * ((double)i + 0.5);
    sum += 4.0 / (1.0 + x * x);
  }
  double partial = h * sum;

  if (rank == 0) {
    double pi = partial;
    for (int source = 1; source < size; source++) {
      MPI_Recv(&partial, 1, MPI_DOUBLE, source, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      pi += partial;
    }
    printf("pi is approximately %.16f, error %.2e (%ld intervals, %d ranks, %.3f s)\n", pi,
           fabs(pi - pi_ref), n, size, MPI_Wtime() - start);
  } else {
    MPI_Send(&partial, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  }

  MPI_Finalize();
  return 0;
}
