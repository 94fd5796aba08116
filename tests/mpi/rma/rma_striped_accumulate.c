/* Accumulates stay element-wise atomic (MPI-4.0 §12.7.1) with Ferry's
 * accumulate lock striped by target address (rma/control.h: 256 KiB
 * blocks, 64 stripes; the 3 MiB array crosses 12 block borders):
 *   - rank 1 adds 1.0 to all M doubles of rank 0's array in one
 *     MPI_Accumulate, again and again; the array starts 4 bytes into the
 *     window (disp_unit 1), so doubles straddle every block border;
 *   - rank 2 adds 2.0 to all of them through a target datatype whose
 *     blocks go backwards through memory (the stripes come in descending
 *     order: no deadlock with rank 1, which takes them ascending);
 *   - every other rank (rank 0 too) adds 1.0 to single doubles at and
 *     around the block borders with MPI_Fetch_and_op and MPI_Accumulate
 *     of one element;
 * and at the end each element holds exactly what was added to it. Runs
 * for about 0.3 s whatever the speed. Passes on MPICH too. */
#define TEST_NAME "rma_striped_accumulate"
#include "../mpitest.h"

enum { M = 3 << 17 /* 3 MiB of doubles */, OFFSET = 4, BLOCK = 1024, BORDER = 262144 };

/* The k-th single-element target: an element at or next to a border. */
static int near_border(int rank, int k) {
  int border = (int)(((long)k * 7 + rank) % (M * 8L / BORDER)) * BORDER;  /* byte of the array's memory */
  int element = (border - OFFSET) / 8 + (k % 3) - 1;                      /* the one across it, +-1 */
  if (element < 0) element = 0;
  if (element >= M) element = M - 1;
  return element;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *mem;
  MPI_Win win;
  MPI_Aint bytes = rank == 0 ? OFFSET + (MPI_Aint)M * 8 : 0;
  MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  if (rank == 0) memset(mem, 0, (size_t)bytes);
  double *values = mt_malloc((size_t)M * sizeof(double));
  int *hits = mt_malloc((size_t)M * sizeof(int));
  memset(hits, 0, (size_t)M * sizeof(int));
  /* Rank 2's target type: the array's BLOCK-double blocks, last first. */
  MPI_Datatype backwards;
  int blocks = M / BLOCK;
  int *displs = mt_malloc((size_t)blocks * sizeof(int));
  for (int b = 0; b < blocks; ++b) displs[b] = (blocks - 1 - b) * BLOCK;
  MPI_Type_create_indexed_block(blocks, BLOCK, displs, MPI_DOUBLE, &backwards);
  MPI_Type_commit(&backwards);
  for (int i = 0; i < M; ++i) values[i] = rank == 2 ? 2.0 : 1.0;
  MPI_Barrier(MPI_COMM_WORLD);

  int rounds = 0;
  double start = MPI_Wtime();
  CHECK_MPI(MPI_Win_lock_all(0, win));
  while (rounds < 3 || MPI_Wtime() - start < 0.3) {
    if (rank == 1) {
      CHECK_MPI(MPI_Accumulate(values, M, MPI_DOUBLE, 0, OFFSET, M, MPI_DOUBLE, MPI_SUM, win));
    } else if (rank == 2) {
      CHECK_MPI(MPI_Accumulate(values, M, MPI_DOUBLE, 0, OFFSET, 1, backwards, MPI_SUM, win));
    } else {
      for (int j = 0; j < 50; ++j) {
        int k = rounds * 50 + j, e = near_border(rank, k);
        double one = 1.0, old;
        if (k % 2) CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_DOUBLE, 0, OFFSET + (MPI_Aint)e * 8, MPI_SUM, win));
        else CHECK_MPI(MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, OFFSET + (MPI_Aint)e * 8, 1, MPI_DOUBLE, MPI_SUM, win));
        ++hits[e];
      }
    }
    CHECK_MPI(MPI_Win_flush(0, win));
    ++rounds;
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);

  /* Rank 0 learns every rank's count and hits, and checks each element. */
  int *all_rounds = mt_malloc((size_t)size * sizeof(int));
  MPI_Gather(&rounds, 1, MPI_INT, all_rounds, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : hits, hits, M, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double whole = (size > 1 ? all_rounds[1] : 0) + (size > 2 ? 2.0 * all_rounds[2] : 0);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    for (int i = 0; i < M; ++i) {
      double got;
      memcpy(&got, mem + OFFSET + (size_t)i * 8, sizeof got);
      CHECK(got == whole + hits[i], "element %d (bytes %d..%d of the window) is %g, expected %g: an update was "
            "lost", i, OFFSET + i * 8, OFFSET + i * 8 + 7, got, whole + hits[i]);
    }
    MPI_Win_unlock(0, win);
  }
  MPI_Type_free(&backwards);
  free(displs);
  free(all_rounds);
  free(values);
  free(hits);
  MPI_Win_free(&win);
  mt_pass();
  MPI_Finalize();
  return 0;
}
