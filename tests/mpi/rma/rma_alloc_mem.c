/* MPI_Win_create on MPI_Alloc_mem memory (MPI-4.0 §9.2, §12.2.1): on one
 * host Ferry maps such memory into the other ranks (src/rma/alloc_mem.h),
 * so that they reach it with loads, stores and CPU atomics. Checked here:
 *   - a window that starts inside the allocation (not at its first byte)
 *     and every operation on it: put, get, accumulate, get_accumulate,
 *     fetch_and_op, compare_and_swap, with a shared counter that every rank
 *     drives concurrently (element-wise atomicity, §12.7.1);
 *   - a window whose ranks differ: MPI_Alloc_mem memory on even ranks,
 *     malloc'd memory on odd ones (mapped and cross-memory-attach targets in
 *     one window, accumulating on the same words);
 *   - the target sees the origins' updates in its own memory after the
 *     epoch (MPI_WIN_UNIFIED), and its own stores are seen by them;
 *   - more live allocations than Ferry maps (kMaxSegments) still work, and
 *     MPI_Free_mem gives every one back.
 * Run with FERRY_DEBUG=rma, ctest also checks that Ferry said it mapped the
 * other ranks' memory. */
#define TEST_NAME "rma_alloc_mem"
#include "../mpitest.h"

enum { WORDS = 1024, ROUNDS = 100, OFFSET_WORDS = 8, MANY = 300 };

/* Every operation on `win` (words of `mem` from OFFSET_WORDS on are the window). */
static void exercise(MPI_Win win, long *w, int rank, int size, const char *what) {
  /* Zero the window; every rank's own memory. */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int i = 0; i < WORDS; ++i) w[i] = 0;
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);

  /* A shared counter at word 0 of every rank: each rank adds its rank + 1,
   * ROUNDS times, to every rank, with fetch_and_op and accumulate in turn. */
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < ROUNDS; ++i)
    for (int t = 0; t < size; ++t) {
      long add = rank + 1, old = -1;
      if (i % 2 == 0) {
        MPI_Fetch_and_op(&add, &old, MPI_LONG, t, 0, MPI_SUM, win);
        MPI_Win_flush(t, win);
        CHECK(old >= 0, "%s: fetch_and_op on rank %d found %ld", what, t, old);
      } else {
        MPI_Accumulate(&add, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win);
      }
    }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  long expected = (long)ROUNDS * size * (size + 1) / 2;
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  CHECK(w[0] == expected, "%s: counter in my memory = %ld, expected %ld", what, w[0], expected);
  MPI_Win_unlock(rank, win);

  /* Puts: each rank writes its rank into word 16 + rank of everyone, at a
   * displacement; gets read them back from the right neighbour. */
  int right = (rank + 1) % size;
  long mine = 1000 + rank;
  MPI_Win_fence(0, win);
  for (int t = 0; t < size; ++t) MPI_Put(&mine, 1, MPI_LONG, t, 16 + rank, 1, MPI_LONG, win);
  MPI_Win_fence(0, win);
  for (int r = 0; r < size; ++r)
    CHECK(w[16 + r] == 1000 + r, "%s: word %d of my memory = %ld after the puts", what, 16 + r, w[16 + r]);
  long back[64];
  MPI_Get(back, size, MPI_LONG, right, 16, size, MPI_LONG, win);
  MPI_Win_fence(0, win);
  for (int r = 0; r < size; ++r)
    CHECK(back[r] == 1000 + r, "%s: get of rank %d's word %d = %ld", what, right, 16 + r, back[r]);

  /* The target's own store is what origins read (unified model). */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  w[100] = 7 * rank + 3;
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  long seen = -1, fetched = -1, swapped = -1, compare = 7 * right + 3, replace = -5;
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Get_accumulate(NULL, 0, MPI_LONG, &seen, 1, MPI_LONG, right, 100, 1, MPI_LONG, MPI_NO_OP, win);
  MPI_Win_flush(right, win);
  CHECK(seen == 7 * right + 3, "%s: rank %d's own store read as %ld", what, right, seen);
  MPI_Win_unlock(right, win);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Compare-and-swap by the left neighbour only: exactly one swap each. */
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Compare_and_swap(&replace, &compare, &swapped, MPI_LONG, right, 100, win);
  MPI_Win_flush(right, win);
  MPI_Fetch_and_op(NULL, &fetched, MPI_LONG, right, 100, MPI_NO_OP, win);
  MPI_Win_unlock(right, win);
  CHECK(swapped == 7 * right + 3, "%s: compare_and_swap found %ld", what, swapped);
  CHECK(fetched == -5, "%s: after compare_and_swap the word is %ld", what, fetched);

  /* Accumulate of doubles, many elements at once, from everyone to rank 0. */
  double *d = (double *)(w + 128);
  double ones[256];
  for (int i = 0; i < 256; ++i) ones[i] = 0.5 * (rank + 1);
  MPI_Win_fence(0, win);
  for (int i = 0; i < ROUNDS / 10; ++i) MPI_Accumulate(ones, 256, MPI_DOUBLE, 0, 128, 256, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_fence(0, win);
  if (rank == 0)
    for (int i = 0; i < 256; ++i)
      CHECK(d[i] == 0.5 * (ROUNDS / 10) * size * (size + 1) / 2, "%s: double %d = %g", what, i, d[i]);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64, "at most 64 ranks");

  /* 1. Every rank's window inside its MPI_Alloc_mem memory. */
  long *mem = NULL;
  CHECK_MPI(MPI_Alloc_mem((MPI_Aint)((WORDS + 2 * OFFSET_WORDS) * sizeof(long)), MPI_INFO_NULL, &mem));
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem + OFFSET_WORDS, WORDS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win));
  mem[0] = 42;  /* before the window: nobody's operations touch it */
  exercise(win, mem + OFFSET_WORDS, rank, size, "alloc_mem window");
  CHECK(mem[0] == 42, "memory before the window changed to %ld", mem[0]);
  MPI_Win_free(&win);
  MPI_Free_mem(mem);

  /* 2. Mixed: MPI_Alloc_mem memory on even ranks, the heap on odd ones. */
  long *heap = NULL;
  if (rank % 2 == 0) CHECK_MPI(MPI_Alloc_mem((MPI_Aint)(WORDS * sizeof(long)), MPI_INFO_NULL, &mem));
  else mem = heap = mt_malloc(WORDS * sizeof(long));
  CHECK_MPI(MPI_Win_create(mem, WORDS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  exercise(win, mem, rank, size, "mixed window");
  MPI_Win_free(&win);
  if (heap != NULL) free(heap);
  else MPI_Free_mem(mem);

  /* 3. More live allocations than are mapped; a window on the last one. */
  void *many[MANY];
  for (int i = 0; i < MANY; ++i) {
    CHECK_MPI(MPI_Alloc_mem(100 + i, MPI_INFO_NULL, &many[i]));
    memset(many[i], i & 0xff, 100 + i);
  }
  long *last = many[MANY - 1];
  CHECK_MPI(MPI_Win_create(last, 8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  long one = 1;
  MPI_Win_fence(0, win);
  MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
  MPI_Win_fence(0, win);
  long base = 0;
  memset(&base, (MANY - 1) & 0xff, sizeof base);
  if (rank == 0) CHECK(last[0] == base + size, "word 0 of the last allocation = %ld", last[0]);
  MPI_Win_free(&win);
  for (int i = 0; i < MANY; ++i) {
    unsigned char *p = many[i];
    if (i != MANY - 1) CHECK(p[99 + i] == (i & 0xff), "allocation %d changed", i);
    MPI_Free_mem(many[i]);
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
