/* Large accumulates on memory that every origin maps (MPI_Win_allocate,
 * MPI_Alloc_mem given to MPI_Win_create), mixed with single-element ones:
 *   - atomicity (MPI-4.0 §12.7.1): for 0.2 s, while one rank adds 1 to all
 *     of rank 0's 1M ints in one MPI_Accumulate, again and again, the others
 *     add 1 to single ints with MPI_Fetch_and_op; no update may be lost, whichever
 *     way Ferry applies each (one pass of the kernel under a lock, or a
 *     compare-and-swap per element);
 *   - byte sums: 4 MiB of MPI_UNSIGNED_CHAR added several times over a put
 *     (the path of MPICH's large_acc_flush_local) leave every byte right.
 * Their speed is a bench row (tests/bench/rma.c), not a timed test. */
#define TEST_NAME "rma_large_accumulate"
#include "../mpitest.h"

enum { N = 1 << 20, SUMS = 7, BYTES = 4 << 20 };

static int hit(int rank, int k) { return (int)(((long)k * 7919 + (long)rank * 104729) % N); }

/* For 0.2 s, rank 1 adds 1 to all of rank 0's ints, again and again, and
 * every other rank (rank 0 too) adds 1 to single ints; then rank 0 checks
 * that every update is there. */
static void mix(MPI_Win win, int *mem, int rank, int size, const char *what) {
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int i = 0; i < N; ++i) mem[i] = 0;
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  int done = 0;
  double start = MPI_Wtime();
  MPI_Win_lock_all(0, win);
  if (rank == 1) {
    int *ones = mt_malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) ones[i] = 1;
    while (done < 3 || MPI_Wtime() - start < 0.2) {
      MPI_Accumulate(ones, N, MPI_INT, 0, 0, N, MPI_INT, MPI_SUM, win);
      MPI_Win_flush(0, win);
      ++done;
    }
    free(ones);
  } else {
    int one = 1, old = 0;
    while (done < 100 || MPI_Wtime() - start < 0.2) {
      MPI_Fetch_and_op(&one, &old, MPI_INT, 0, hit(rank, done), MPI_SUM, win);
      MPI_Win_flush(0, win);
      ++done;
    }
  }
  MPI_Win_unlock_all(win);
  int *counts = mt_malloc((size_t)size * sizeof(int));
  MPI_Gather(&done, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int *want = mt_malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) want[i] = counts[1];
    for (int r = 0; r < size; ++r)
      if (r != 1)
        for (int k = 0; k < counts[r]; ++k) ++want[hit(r, k)];
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    for (int i = 0; i < N; ++i) CHECK(mem[i] == want[i], "%s: int %d = %d, expected %d", what, i, mem[i], want[i]);
    MPI_Win_unlock(0, win);
    free(want);
  }
  free(counts);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  int *mem;
  MPI_Win win;
  MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  mix(win, mem, rank, size, "MPI_Win_allocate");

  /* Byte sums on the same window: a put of ones, then SUMS accumulates of
   * ones, read back with a get. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    unsigned char *bytes = mt_malloc(BYTES), *back = mt_malloc(BYTES);
    memset(bytes, 1, BYTES);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(bytes, BYTES, MPI_UNSIGNED_CHAR, 0, 0, BYTES, MPI_UNSIGNED_CHAR, win);
    MPI_Win_flush(0, win);
    for (int i = 0; i < SUMS; ++i)
      MPI_Accumulate(bytes, BYTES, MPI_UNSIGNED_CHAR, 0, 0, BYTES, MPI_UNSIGNED_CHAR, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Get(back, BYTES, MPI_UNSIGNED_CHAR, 0, 0, BYTES, MPI_UNSIGNED_CHAR, win);
    MPI_Win_unlock(0, win);
    for (int i = 0; i < BYTES; ++i)
      CHECK(back[i] == 1 + SUMS, "byte %d after a put and %d sums of ones: %d", i, SUMS, back[i]);
    free(bytes);
    free(back);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);

  CHECK_MPI(MPI_Alloc_mem(N * sizeof(int), MPI_INFO_NULL, &mem));
  CHECK_MPI(MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  mix(win, mem, rank, size, "MPI_Win_create on MPI_Alloc_mem");
  MPI_Win_free(&win);
  MPI_Free_mem(mem);
  mt_pass();
  MPI_Finalize();
  return 0;
}
