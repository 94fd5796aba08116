/* What a fence promises when nobody waits for acknowledgements (Ferry's
 * counted fence, rma/epochs.cc): every operation of an epoch is done at its
 * target when the closing fence returns anywhere (MPI-4.0 §12.5.1), so
 *   - a get of the next epoch sees what every other origin put in this one,
 *     even when the getter leaves the fence before the target does;
 *   - an epoch of more puts than the origin leaves unacknowledged in a row
 *     (the flow control's bound), and of several MiB, still lands whole;
 *   - accumulates of many origins in one epoch all count.
 * Rounds of all three, on every rank pair. */
#define TEST_NAME "rma_fence_order"
#include "../mpitest.h"

enum { ROUNDS = 40, MANY = 100, BIG = 3 << 20 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* Words [0, size): one per origin; [size, size + MANY): the right
   * neighbour's stream of puts; then a counter. */
  MPI_Aint words = size + MANY + 1;
  long *mem;
  MPI_Win win;
  MPI_Win_allocate(words * (MPI_Aint)sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  for (MPI_Aint i = 0; i < words; ++i) mem[i] = -1;
  mem[words - 1] = 0;
  long *got = malloc(sizeof(long) * (size_t)size), stream[MANY];
  MPI_Win_fence(0, win);
  for (int round = 0; round < ROUNDS; ++round) {
    long mine = round * 1000 + rank, one = 1;
    for (int t = 0; t < size; ++t) MPI_Put(&mine, 1, MPI_LONG, t, rank, 1, MPI_LONG, win);
    /* Origin buffers stay untouched until the fence (§12.7). */
    for (int i = 0; i < MANY; ++i) {
      stream[i] = round * 1000 + i;
      MPI_Put(&stream[i], 1, MPI_LONG, right, size + i, 1, MPI_LONG, win);
    }
    for (int t = 0; t < size; ++t) MPI_Accumulate(&one, 1, MPI_LONG, t, words - 1, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_fence(0, win);
    /* My memory, read while others only read it (the next epoch's gets). */
    for (int i = 0; i < MANY; ++i)
      CHECK(mem[size + i] == round * 1000 + i, "round %d: put %d from rank %d is %ld", round, i, left, mem[size + i]);
    CHECK(mem[words - 1] == (long)(round + 1) * size, "round %d: counter %ld, expected %ld", round, mem[words - 1],
          (long)(round + 1) * size);
    /* The next epoch: read the right neighbour's words of every origin. */
    MPI_Get(got, size, MPI_LONG, right, 0, size, MPI_LONG, win);
    MPI_Win_fence(0, win);
    for (int r = 0; r < size; ++r)
      CHECK(got[r] == round * 1000 + r, "round %d: rank %d's word of origin %d read as %ld", round, right, r, got[r]);
  }
  MPI_Win_free(&win);

  /* Several MiB in one epoch, in pieces: more bytes than go unacknowledged. */
  char *big;
  MPI_Win_allocate(BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &big, &win);
  char *src = malloc(BIG);
  for (int i = 0; i < BIG; ++i) src[i] = (char)(i * 7 + rank);
  MPI_Win_fence(0, win);
  for (int piece = 0; piece < 3; ++piece)
    MPI_Put(src + piece * (BIG / 3), BIG / 3, MPI_BYTE, right, piece * (BIG / 3), BIG / 3, MPI_BYTE, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < BIG; ++i)
    if (big[i] != (char)(i * 7 + left)) {
      CHECK(0, "big put: byte %d is %d, expected %d", i, big[i], (char)(i * 7 + left));
      break;
    }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Win_free(&win);
  free(src);
  free(got);
  mt_pass();
  MPI_Finalize();
  return 0;
}
