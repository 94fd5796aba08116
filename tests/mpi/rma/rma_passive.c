/* Passive-target RMA (MPI-4.0 §12.5.3) on allocated and user memory:
 * exclusive and shared locks, lock_all with flush, a shared counter driven
 * by MPI_Fetch_and_op from every rank, a spin lock by MPI_Compare_and_swap,
 * get_accumulate, and the request forms. */
#define TEST_NAME "rma_passive"
#include "../mpitest.h"

enum { ROUNDS = 200 };

static void exercise(MPI_Win win, long *mem, int rank, int size) {
  /* A counter at rank 0, word 0: everyone adds 1, ROUNDS times. */
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    mem[0] = 0;
    mem[1] = 0;
    mem[2] = -1;
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  long one = 1, old = 0, seen_max = -1;
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < ROUNDS; ++i) {
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win);
    MPI_Win_flush(0, win);
    CHECK(old >= 0 && old < (long)ROUNDS * size, "fetch_and_op: old value %ld", old);
    if (old > seen_max) seen_max = old;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    long total = 0;
    MPI_Get(&total, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
    MPI_Win_unlock(0, win);
    CHECK(total == (long)ROUNDS * size, "counter = %ld, expected %ld", total, (long)ROUNDS * size);
  }
  /* A critical section guarded by compare-and-swap on word 2 (-1: free);
   * inside it, a non-atomic read-modify-write of word 1 must not lose updates. */
  for (int i = 0; i < 20; ++i) {
    long mine = rank, free_value = -1, found = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    do {
      MPI_Compare_and_swap(&mine, &free_value, &found, MPI_LONG, 0, 2, win);
      MPI_Win_flush(0, win);
    } while (found != -1);
    long v = 0;
    MPI_Get(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
    MPI_Win_flush(0, win);
    ++v;
    MPI_Put(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
    MPI_Win_flush(0, win);
    MPI_Compare_and_swap(&free_value, &mine, &found, MPI_LONG, 0, 2, win);
    MPI_Win_unlock(0, win);
    CHECK(found == rank, "releasing the CAS lock found %ld", found);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    CHECK(mem[1] == 20L * size, "CAS-guarded counter = %ld, expected %ld", mem[1], 20L * size);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* Exclusive lock on my right neighbour: Rput my rank into its word 3+rank,
   * Rget it back, get_accumulate(MPI_NO_OP) reads it. */
  int right = (rank + 1) % size;
  long val = 100 + rank, back = 0, fetched = 0;
  MPI_Request reqs[2];
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
  MPI_Rput(&val, 1, MPI_LONG, right, 3, 1, MPI_LONG, win, &reqs[0]);
  MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
  MPI_Win_flush(right, win);
  MPI_Rget(&back, 1, MPI_LONG, right, 3, 1, MPI_LONG, win, &reqs[1]);
  MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
  MPI_Get_accumulate(NULL, 0, MPI_LONG, &fetched, 1, MPI_LONG, right, 3, 1, MPI_LONG, MPI_NO_OP, win);
  MPI_Win_unlock(right, win);
  CHECK(back == val, "Rget after Rput: %ld, expected %ld", back, val);
  CHECK(fetched == val, "get_accumulate(MPI_NO_OP): %ld, expected %ld", fetched, val);
  /* Accumulate of doubles from everyone into rank 0's words 4..7 under shared locks. */
  MPI_Barrier(MPI_COMM_WORLD);
  double *d = (double *)(mem + 8);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    for (int i = 0; i < 4; ++i) d[i] = 0.0;
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double add[4] = {0.5, 1.0, 1.5, 2.0};
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  for (int i = 0; i < 50; ++i) MPI_Accumulate(add, 4, MPI_DOUBLE, 0, 8, 4, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    for (int i = 0; i < 4; ++i)
      CHECK(d[i] == 50.0 * size * add[i], "double accumulate d[%d] = %g, expected %g", i, d[i], 50.0 * size * add[i]);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *mem;
  MPI_Win win;
  MPI_Win_allocate(16 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  exercise(win, mem, rank, size);
  MPI_Win_free(&win);
  long *user = mt_malloc(16 * sizeof(long));
  MPI_Win_create(user, 16 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  exercise(win, user, rank, size);
  MPI_Win_free(&win);
  free(user);
  mt_pass();
  MPI_Finalize();
  return 0;
}
