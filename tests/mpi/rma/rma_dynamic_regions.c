/* A dynamic window (MPI-4.0 §12.2.4) with memory attached in pieces that
 * lie back to back: an operation whose target range runs across the border
 * of two attached regions touches attached memory only, so it is valid and
 * must work, on another rank's window and on one's own (MPICH's
 * win_dynamic_rma_flush_get does this with two halves of one array). A
 * range that reaches past the attached memory of one's own window is still
 * MPI_ERR_RMA_RANGE (Ferry; the standard leaves it undefined). */
#define TEST_NAME "rma_dynamic_regions"
#include "../mpitest.h"

enum { HALF = 1000, TOTAL = 2 * HALF, PIECE = 300 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* One array, attached as three regions: [0, HALF), [HALF, TOTAL - 10),
   * [TOTAL - 10, TOTAL), attached out of order. */
  int *mem = mt_malloc(TOTAL * sizeof(int));
  for (int i = 0; i < TOTAL; ++i) mem[i] = -1;
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_attach(win, mem + TOTAL - 10, 10 * sizeof(int)));
  CHECK_MPI(MPI_Win_attach(win, mem, HALF * sizeof(int)));
  CHECK_MPI(MPI_Win_attach(win, mem + HALF, (HALF - 10) * sizeof(int)));
  MPI_Aint mine, *bases = mt_malloc((size_t)size * sizeof(MPI_Aint));
  MPI_Get_address(mem, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);

  int right = (rank + 1) % size;
  int piece[TOTAL], back[TOTAL];
  for (int i = 0; i < TOTAL; ++i) piece[i] = rank * 100000 + i;
  /* To the right neighbour and to myself: a put across the first border,
   * an accumulate across the second, a get of everything. */
  int targets[2] = {right, rank};
  for (int k = 0; k < 2; ++k) {
    int t = targets[k];
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
    MPI_Aint across_first = MPI_Aint_add(bases[t], (HALF - PIECE / 2) * sizeof(int));
    CHECK_MPI(MPI_Put(piece, PIECE, MPI_INT, t, across_first, PIECE, MPI_INT, win));
    MPI_Aint across_second = MPI_Aint_add(bases[t], (TOTAL - 20) * sizeof(int));
    int ones[20];
    for (int i = 0; i < 20; ++i) ones[i] = 1;
    CHECK_MPI(MPI_Accumulate(ones, 20, MPI_INT, t, across_second, 20, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK_MPI(MPI_Get(back, TOTAL, MPI_INT, t, bases[t], TOTAL, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    for (int i = 0; i < TOTAL; ++i) {
      int want = -1;
      if (i >= HALF - PIECE / 2 && i < HALF - PIECE / 2 + PIECE) want = piece[i - (HALF - PIECE / 2)];
      if (i >= TOTAL - 20) want = 0;  /* -1 + 1 */
      CHECK(back[i] == want, "target %d: word %d = %d, expected %d", t, i, back[i], want);
    }
    /* Reset for the next round (my own memory, after everyone is done with it). */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < TOTAL; ++i) mem[i] = -1;
  }

  /* Past the end of the attached memory, on my own window (checked before
   * anything is touched): MPI_ERR_RMA_RANGE on the window's handler. */
  if (mt_is_ferry()) {  /* another MPI may well write past the array */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    int err = MPI_Put(piece, 20, MPI_INT, rank, MPI_Aint_add(bases[rank], (TOTAL - 10) * sizeof(int)), 20, MPI_INT,
                      win);
    int unlock_err = MPI_Win_unlock(rank, win);
    if (err == MPI_SUCCESS) err = unlock_err;
    int cls = MPI_SUCCESS;
    if (err != MPI_SUCCESS) MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "a put past the attached memory: error class %d", cls);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  CHECK_MPI(MPI_Win_detach(win, mem));
  CHECK_MPI(MPI_Win_detach(win, mem + HALF));
  CHECK_MPI(MPI_Win_detach(win, mem + TOTAL - 10));
  MPI_Win_free(&win);
  free(bases);
  free(mem);
  mt_pass();
  MPI_Finalize();
  return 0;
}
