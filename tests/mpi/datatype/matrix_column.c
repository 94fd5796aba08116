/*
 * Columns of a row-major matrix as MPI_Type_vector: each rank sends column
 * c of its matrix to the next rank around a ring, which receives it three
 * ways: into a column of its own matrix (the same vector type), into a
 * contiguous array (a different type map of the same signature), and as a
 * column resized to one double's extent, several at once (count > 1 of a
 * resized vector: consecutive columns). Message sizes cross the eager limit
 * and the 256 KiB chunk of non-contiguous rendezvous transfers.
 */
#define TEST_NAME "matrix_column"
#include "mpitest.h"

static double value(int rank, int row, int col) { return rank * 1e6 + row * 1e3 + col; }

static void fill(double *m, int rows, int cols, int rank) {
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) m[(size_t)r * cols + c] = value(rank, r, c);
}

static void exchange(int rows, int cols, int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  size_t n = (size_t)rows * cols;
  double *mine = mt_malloc(n * sizeof(double));
  double *theirs = mt_malloc(n * sizeof(double));
  double *flat = mt_malloc((size_t)rows * 3 * sizeof(double));
  MPI_Datatype column, column_slot;
  MPI_Status st;
  int count;

  MPI_Type_vector(rows, 1, cols, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  fill(mine, rows, cols, rank);

  /* 1. Column 1 of ours into column 2 of theirs, same type. */
  for (size_t i = 0; i < n; i++) theirs[i] = -1.0;
  MPI_Sendrecv(mine + 1, 1, column, right, 1, theirs + 2, 1, column, left, 1, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, column, &count);
  CHECK(count == 1, "%dx%d: MPI_Get_count(column) gave %d", rows, cols, count);
  MPI_Get_elements(&st, column, &count);
  CHECK(count == rows, "%dx%d: MPI_Get_elements(column) gave %d, expected %d", rows, cols, count, rows);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      double want = c == 2 ? value(left, r, 1) : -1.0;
      CHECK(theirs[(size_t)r * cols + c] == want, "%dx%d: received matrix [%d][%d] is %g, expected %g", rows, cols,
            r, c, theirs[(size_t)r * cols + c], want);
    }

  /* 2. A column into a contiguous array: same signature, other type map. */
  MPI_Sendrecv(mine + cols - 1, 1, column, right, 2, flat, rows, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  CHECK(count == rows, "%dx%d: MPI_Get_count(MPI_DOUBLE) gave %d", rows, cols, count);
  for (int r = 0; r < rows; r++)
    CHECK(flat[r] == value(left, r, cols - 1), "%dx%d: flat[%d] is %g, expected %g", rows, cols, r, flat[r],
          value(left, r, cols - 1));

  /* 3. And back: a contiguous array into a column. */
  for (size_t i = 0; i < n; i++) theirs[i] = -1.0;
  for (int r = 0; r < rows; r++) flat[r] = value(rank, r, 100);
  MPI_Sendrecv(flat, rows, MPI_DOUBLE, right, 3, theirs, 1, column, left, 3, MPI_COMM_WORLD, &st);
  for (int r = 0; r < rows; r++) {
    CHECK(theirs[(size_t)r * cols] == value(left, r, 100), "%dx%d: column 0 row %d is %g", rows, cols, r,
          theirs[(size_t)r * cols]);
    if (cols > 1) CHECK(theirs[(size_t)r * cols + 1] == -1.0, "%dx%d: column 1 row %d was written", rows, cols, r);
  }

  /* 4. Three consecutive columns as count 3 of a column resized to one
   *    double: nonblocking, received as a 3-column-wide contiguous block. */
  if (cols >= 4) {
    MPI_Request req[2];
    MPI_Type_create_resized(column, 0, sizeof(double), &column_slot);
    MPI_Type_commit(&column_slot);
    MPI_Irecv(flat, rows * 3, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(mine + 1, 3, column_slot, right, 4, MPI_COMM_WORLD, &req[1]);
    /* Freeing the types now must not disturb the pending send (MPI-3.1 §4.1.9). */
    MPI_Type_free(&column_slot);
    CHECK(column_slot == MPI_DATATYPE_NULL, "MPI_Type_free did not reset the handle");
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    /* Typemap order: column 1 (all rows), then column 2, then column 3. */
    for (int k = 0; k < 3; k++)
      for (int r = 0; r < rows; r++)
        CHECK(flat[k * rows + r] == value(left, r, 1 + k), "%dx%d: column %d row %d is %g, expected %g", rows, cols,
              1 + k, r, flat[k * rows + r], value(left, r, 1 + k));
  }

  MPI_Type_free(&column);
  free(mine);
  free(theirs);
  free(flat);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Small (eager), around the 64 KiB eager limit, and several chunks; at
   * least 3 columns, as the exchanges use columns 0 to 2. */
  static const int shapes[][2] = {{1, 3}, {5, 7}, {100, 4}, {9000, 5}, {100000, 6}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) exchange(shapes[i][0], shapes[i][1], rank, size);
  mt_pass();
  MPI_Finalize();
  return 0;
}
