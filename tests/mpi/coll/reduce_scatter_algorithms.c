/*
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block give each rank its block
 * of the reduced vector (MPI-3.1 §5.10): uneven counts including empty
 * blocks, counts up to a few MiB in all, MPI_IN_PLACE (input in recvbuf,
 * result at its start), integer and double sums, and a non-commutative user
 * operation in rank order.
 *
 * Run once per algorithm with FERRY_REDUCE_SCATTER_ALGORITHM and
 * FERRY_REDUCE_SCATTER_BLOCK_ALGORITHM (pairwise takes commutative
 * operations only: the table must fall back for the matrix product).
 */
#define TEST_NAME "reduce_scatter_algorithms"
#include "../mpitest.h"
#include "reduction_check.h"

/* Rank r's block: base + r * step elements, some of them zero. */
static int block_count(int r, int base, int shape) {
  switch (shape) {
    case 0: return base;                         /* equal */
    case 1: return (r % 3 == 1) ? 0 : base + r;  /* uneven, with empty blocks */
    default: return r == 0 ? base * 3 : 1;       /* one big block */
  }
}

static void check_int(int rank, int size, int base, int shape, int in_place, int block) {
  int *counts = rc_alloc(sizeof(int) * (size_t)size);
  long total = 0, first = 0;
  for (int r = 0; r < size; r++) {
    counts[r] = block ? base : block_count(r, base, shape);
    if (r < rank) first += counts[r];
    total += counts[r];
  }
  int *in = rc_alloc(sizeof(int) * (size_t)total);
  int *out = rc_alloc(sizeof(int) * (size_t)(in_place ? total : counts[rank]));
  for (long i = 0; i < total; i++) in[i] = rc_int(rank, i);
  if (in_place) memcpy(out, in, sizeof(int) * (size_t)total);
  const void *send = in_place ? MPI_IN_PLACE : in;
  if (block) MPI_Reduce_scatter_block(send, out, base, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  else MPI_Reduce_scatter(send, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < counts[rank]; i++) {
    int want = 0;
    for (int r = 0; r < size; r++) want += rc_int(r, first + i);
    CHECK(out[i] == want, "%s MPI_INT base %d shape %d%s: element %d is %d, expected %d",
          block ? "Reduce_scatter_block" : "Reduce_scatter", base, shape, in_place ? " in place" : "", i, out[i],
          want);
  }
  free(counts);
  free(in);
  free(out);
}

static void check_double(int rank, int size, int base) {
  double *in = rc_alloc(sizeof(double) * (size_t)base * (size_t)size), *out = rc_alloc(sizeof(double) * (size_t)base);
  for (long i = 0; i < (long)base * size; i++) in[i] = rc_double(rank, i);
  MPI_Reduce_scatter_block(in, out, base, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < base; i++) {
    double want = 0;
    for (int r = 0; r < size; r++) want += rc_double(r, (long)rank * base + i);
    CHECK(rc_close(out[i], want), "Reduce_scatter_block MPI_DOUBLE base %d: element %d is %.17g, expected %.17g", base,
          i, out[i], want);
  }
  free(in);
  free(out);
}

static void check_matrix(int rank, int size, int base, int shape, MPI_Op matmul) {
  int *counts = rc_alloc(sizeof(int) * (size_t)size);
  long total = 0, first = 0;
  for (int r = 0; r < size; r++) {
    counts[r] = block_count(r, base, shape);
    if (r < rank) first += counts[r];
    total += counts[r];
  }
  uint64_t *in = rc_alloc(8 * (size_t)total), *out = rc_alloc(8 * (size_t)counts[rank]);
  for (long i = 0; i < total; i++) in[i] = rc_matrix(rank, i);
  MPI_Reduce_scatter(in, out, counts, MPI_UINT64_T, matmul, MPI_COMM_WORLD);
  for (int i = 0; i < counts[rank]; i++) {
    uint64_t want = rc_matrix_product(0, size - 1, first + i);
    CHECK(out[i] == want, "non-commutative Reduce_scatter base %d shape %d: element %d is %llx, expected %llx", base,
          shape, i, (unsigned long long)out[i], (unsigned long long)want);
  }
  free(counts);
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  static const int kBases[] = {0, 1, 2, 5, 100, 4099, 100003};
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op matmul;
  MPI_Op_create(rc_matmul_op, 0, &matmul);
  for (size_t k = 0; k < sizeof kBases / sizeof kBases[0]; k++) {
    int base = kBases[k];
    for (int shape = 0; shape < 3; shape++) {
      check_int(rank, size, base, shape, 0, 0);
      check_int(rank, size, base, shape, 1, 0);
      check_matrix(rank, size, base, shape, matmul);
    }
    check_int(rank, size, base, 0, 0, 1);
    check_int(rank, size, base, 0, 1, 1);
    check_double(rank, size, base);
  }
  MPI_Op_free(&matmul);
  mt_pass();
  MPI_Finalize();
  return 0;
}
