/* ring: a token goes once around all ranks. Rank 0 starts it at 0, every
 * rank adds one before passing it on, so it comes back to rank 0 holding
 * the number of ranks.
 *
 *   mpicc -o ring ring.c
 *   mpirun -n 4 ./ring
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);

  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size;
  const int prev = (rank + size - 1) % size;
  const int tag = 0;
  int token;

  if (rank == 0) {
    /* Rank 0 adds its one, sends first and receives last. One call does
     * both, which also works when rank 0 is alone and sends to itself. */
    token = 1;
    MPI_Sendrecv_replace(&token, 1, MPI_INT, next, tag, prev, tag, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    if (token != size) {
      fprintf(stderr, "ring: the token came back as %d, expected %d\n", token, size);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("ring: the token went through %d ranks and came back as %d\n", size, token);
  } else {
    MPI_Recv(&token, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token++;
    MPI_Send(&token, 1, MPI_INT, next, tag, MPI_COMM_WORLD);
  }

  MPI_Finalize();
  return 0;
}
