/*
 * sendrecv_fastest: coll_sweep.c's Sendrecv row (each rank sends to its right neighbour and receives
 * from its left, a ring; at 2 ranks an exchange) at a few sizes, timed per batch, keeping the
 * fastest batch and the median one: on a loaded machine preemptions cost batches, not the figure
 * (as pingpong_fastest.c).
 *
 *   mpirun -n 2 sendrecv_fastest [batches] [bytes,bytes,...]   (default 100; 8,1024,65536,1048576,4194304)
 *
 * A batch is a barrier then as many calls as move about 2 MiB each way (1,000 at most).
 * Output: '#' header lines, then "bytes fastest_us median_us" per size (rank 0's batches).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int batches = argc > 1 ? atoi(argv[1]) : 100, rank, size;
  const char *list = argc > 2 ? argv[2] : "8,1024,65536,1048576,4194304";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (batches < 1) batches = 1;
  double *times = malloc(sizeof(double) * (size_t)batches);
  if (rank == 0) printf("# sendrecv_fastest: %d ranks, fastest and median of %d batches\n# bytes fastest_us median_us\n", size, batches);
  for (const char *p = list; *p;) {
    size_t bytes = (size_t)strtoull(p, NULL, 0);
    p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p);
    char *sbuf = malloc(bytes + 64), *rbuf = malloc(bytes + 64);
    memset(sbuf, rank + 1, bytes + 64);
    memset(rbuf, 0, bytes + 64);
    long iters = bytes > 0 ? (long)((2u << 20) / bytes) : 1000;
    if (iters < 1) iters = 1;
    if (iters > 1000) iters = 1000;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 5; i++)
      MPI_Sendrecv(sbuf, (int)bytes, MPI_BYTE, right, 0, rbuf, (int)bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    for (int b = 0; b < batches; b++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (long i = 0; i < iters; i++)
        MPI_Sendrecv(sbuf, (int)bytes, MPI_BYTE, right, 0, rbuf, (int)bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
      times[b] = (MPI_Wtime() - t0) / (double)iters * 1e6;
    }
    qsort(times, (size_t)batches, sizeof(double), by_value);
    if (rank == 0) printf("%zu %.3f %.3f\n", bytes, times[0], times[batches / 2]);
    free(sbuf);
    free(rbuf);
  }
  free(times);
  MPI_Finalize();
  return 0;
}
