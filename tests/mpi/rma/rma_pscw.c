/* Generalized active target (MPI-4.0 §12.5.2): each rank exposes its
 * window to its left neighbour with post/wait (or post/test) and accesses
 * its right neighbour with start/complete. */
#define TEST_NAME "rma_pscw"
#include "../mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *mem;
  MPI_Win win;
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Group world, to_right, to_left;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &right, &to_right);
  MPI_Group_incl(world, 1, &left, &to_left);
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 8; ++i) mem[i] = -1;
    MPI_Win_post(to_left, 0, win);
    MPI_Win_start(to_right, 0, win);
    int data[8];
    for (int i = 0; i < 8; ++i) data[i] = rank * 100 + round + i;
    MPI_Put(data, 8, MPI_INT, right, 0, 8, MPI_INT, win);
    int one = 1;
    MPI_Accumulate(&one, 1, MPI_INT, right, 7, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_complete(win);
    if (round % 2) {
      MPI_Win_wait(win);
    } else {
      int flag = 0;
      double start = MPI_Wtime();
      while (!flag) {
        MPI_Win_test(win, &flag);
        CHECK(MPI_Wtime() - start < MT_POLL_LIMIT_S, "MPI_Win_test never said the epoch ended");
      }
    }
    for (int i = 0; i < 7; ++i)
      CHECK(mem[i] == left * 100 + round + i, "round %d: mem[%d] = %d, expected %d", round, i, mem[i],
            left * 100 + round + i);
    CHECK(mem[7] == left * 100 + round + 7 + 1, "round %d: accumulate after put: %d", round, mem[7]);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Group_free(&to_right);
  MPI_Group_free(&to_left);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  mt_pass();
  MPI_Finalize();
  return 0;
}
