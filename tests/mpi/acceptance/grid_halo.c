/* Acceptance for the datatypes/communicators issue, written the way a user
 * writes a solver: a 2-D process grid with row and column communicators, a
 * matrix column exchanged as a vector type, an array of padded structs
 * (struct + resized), a 3-D halo exchanged with subarray types, and a
 * MINLOC reduction of MPI_DOUBLE_INT on the row and column communicators.
 * Every received value is checked against what its sender must have had. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define N 6  /* local matrix is N x N; local cube is (N+2)^3 with ghosts */

static int failures = 0;
#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "grid_halo: FAILED: " __VA_ARGS__); \
      fprintf(stderr, "\n");                              \
      failures++;                                         \
    }                                                     \
  } while (0)

struct particle {
  char kind;
  double mass;
  int id;
};

static double cell(int rank, int i, int j, int k) { return rank * 1e6 + i * 1e4 + j * 1e2 + k; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* The grid: as many rows as the largest divisor of size not above sqrt(size). */
  int rows = 1;
  for (int r = 1; r * r <= size; r++)
    if (size % r == 0) rows = r;
  int cols = size / rows;
  int my_row = rank / cols, my_col = rank % cols;
  MPI_Comm row_comm, col_comm;
  MPI_Comm_split(MPI_COMM_WORLD, my_row, my_col, &row_comm);
  MPI_Comm_split(MPI_COMM_WORLD, my_col, my_row, &col_comm);
  int row_rank, row_size, col_rank, col_size;
  MPI_Comm_rank(row_comm, &row_rank);
  MPI_Comm_size(row_comm, &row_size);
  MPI_Comm_rank(col_comm, &col_rank);
  MPI_Comm_size(col_comm, &col_size);
  CHECK(row_rank == my_col && row_size == cols, "row communicator: rank %d size %d", row_rank, row_size);
  CHECK(col_rank == my_row && col_size == rows, "column communicator: rank %d size %d", col_rank, col_size);

  /* 1. A matrix column (vector type): send my first column to the right
   *    neighbour in my row, receive the left neighbour's into my last column. */
  double a[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) a[i][j] = rank * 1000 + i * N + j;
  MPI_Datatype column;
  MPI_Type_vector(N, 1, N, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  int right = (row_rank + 1) % row_size, left = (row_rank + row_size - 1) % row_size;
  MPI_Sendrecv(&a[0][0], 1, column, right, 1, &a[0][N - 1], 1, column, left, 1, row_comm, MPI_STATUS_IGNORE);
  int left_world = my_row * cols + left;
  for (int i = 0; i < N; i++)
    CHECK(a[i][N - 1] == left_world * 1000 + i * N + 0, "column element %d: %g", i, a[i][N - 1]);
  for (int i = 0; i < N; i++) /* the rest of the matrix is untouched */
    CHECK(a[i][1] == rank * 1000 + i * N + 1, "matrix element (%d,1) changed", i);
  MPI_Type_free(&column);

  /* 2. An array of padded structs (struct + resized), to the next world rank. */
  enum { P = 10 };
  struct particle out[P], in[P];
  for (int i = 0; i < P; i++) {
    out[i].kind = (char)('a' + (rank + i) % 26);
    out[i].mass = rank + i / 8.0;
    out[i].id = rank * 100 + i;
    in[i].kind = 0, in[i].mass = -1, in[i].id = -1;
  }
  int lengths[3] = {1, 1, 1};
  MPI_Aint displacements[3] = {offsetof(struct particle, kind), offsetof(struct particle, mass),
                               offsetof(struct particle, id)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, raw, particle_type;
  MPI_Type_create_struct(3, lengths, displacements, types, &raw);
  MPI_Type_create_resized(raw, 0, sizeof(struct particle), &particle_type);
  MPI_Type_commit(&particle_type);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Status st;
  MPI_Sendrecv(out, P, particle_type, next, 2, in, P, particle_type, prev, 2, MPI_COMM_WORLD, &st);
  int got = -1;
  MPI_Get_count(&st, particle_type, &got);
  CHECK(got == P, "struct count %d", got);
  for (int i = 0; i < P; i++)
    CHECK(in[i].kind == (char)('a' + (prev + i) % 26) && in[i].mass == prev + i / 8.0 && in[i].id == prev * 100 + i,
          "particle %d: %c %g %d", i, in[i].kind, in[i].mass, in[i].id);
  MPI_Type_free(&raw);
  MPI_Type_free(&particle_type);

  /* 3. A 3-D halo (subarray types): my interior face x = N goes to the next
   *    world rank, whose ghost plane x = 0 receives it. */
  int full[3] = {N + 2, N + 2, N + 2}, face[3] = {1, N, N};
  int send_start[3] = {N, 1, 1}, recv_start[3] = {0, 1, 1};
  MPI_Datatype send_face, recv_ghost;
  MPI_Type_create_subarray(3, full, face, send_start, MPI_ORDER_C, MPI_DOUBLE, &send_face);
  MPI_Type_create_subarray(3, full, face, recv_start, MPI_ORDER_C, MPI_DOUBLE, &recv_ghost);
  MPI_Type_commit(&send_face);
  MPI_Type_commit(&recv_ghost);
  double* cube = malloc(sizeof(double) * (N + 2) * (N + 2) * (N + 2));
  for (int i = 0; i < N + 2; i++)
    for (int j = 0; j < N + 2; j++)
      for (int k = 0; k < N + 2; k++) cube[(i * (N + 2) + j) * (N + 2) + k] = (i == 0) ? -1.0 : cell(rank, i, j, k);
  MPI_Sendrecv(cube, 1, send_face, next, 3, cube, 1, recv_ghost, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int j = 0; j < N + 2; j++)
    for (int k = 0; k < N + 2; k++) {
      double v = cube[(0 * (N + 2) + j) * (N + 2) + k];
      int interior = j >= 1 && j <= N && k >= 1 && k <= N;
      double want = interior ? cell(prev, N, j, k) : -1.0;
      CHECK(v == want, "ghost (0,%d,%d) = %g, want %g", j, k, v, want);
    }
  free(cube);
  MPI_Type_free(&send_face);
  MPI_Type_free(&recv_ghost);

  /* 4. MINLOC of MPI_DOUBLE_INT on the row and the column communicators. */
  struct {
    double value;
    int index;
  } mine = {(double)((rank * 7) % 5), rank}, row_min, col_min;
  MPI_Allreduce(&mine, &row_min, 1, MPI_DOUBLE_INT, MPI_MINLOC, row_comm);
  MPI_Allreduce(&mine, &col_min, 1, MPI_DOUBLE_INT, MPI_MINLOC, col_comm);
  double want_row = 1e300, want_col = 1e300;
  int want_row_index = -1, want_col_index = -1;
  for (int r = 0; r < size; r++) {
    double v = (double)((r * 7) % 5);
    if (r / cols == my_row && (v < want_row || (v == want_row && r < want_row_index)))
      want_row = v, want_row_index = r;
    if (r % cols == my_col && (v < want_col || (v == want_col && r < want_col_index)))
      want_col = v, want_col_index = r;
  }
  CHECK(row_min.value == want_row && row_min.index == want_row_index, "row MINLOC (%g,%d), want (%g,%d)",
        row_min.value, row_min.index, want_row, want_row_index);
  CHECK(col_min.value == want_col && col_min.index == want_col_index, "column MINLOC (%g,%d), want (%g,%d)",
        col_min.value, col_min.index, want_col, want_col_index);

  MPI_Comm_free(&row_comm);
  MPI_Comm_free(&col_comm);
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all_failures == 0) printf("grid_halo: OK on %d ranks (%d x %d grid)\n", size, rows, cols);
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
