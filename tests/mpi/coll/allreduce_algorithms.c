/*
 * MPI_Allreduce gives the reference result on every rank, with the same
 * bits everywhere, for counts from 0 to a few MiB: integer sums (exact),
 * double sums (checked to rounding, and bitwise identical across ranks),
 * MPI_IN_PLACE, MAXLOC on pairs, and a non-commutative user operation
 * applied in rank order (MPI-3.1 §5.9.1, §5.9.5).
 *
 * Run once per algorithm with FERRY_ALLREDUCE_ALGORITHM (ring takes
 * commutative operations only: the selection table must fall back for the
 * matrix product, and the result must still be in rank order).
 */
#define TEST_NAME "allreduce_algorithms"
#include "../mpitest.h"
#include "reduction_check.h"

static const int kCounts[] = {0, 1, 2, 3, 5, 8, 17, 100, 1000, 4099, 16391, 65536, 300007};

static void int_sum(int rank, int size, int count) {
  int *in = rc_alloc(sizeof(int) * (size_t)count), *out = rc_alloc(sizeof(int) * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_int(rank, i), out[i] = -1;
  MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < count; i++) {
    int want = 0;
    for (int r = 0; r < size; r++) want += rc_int(r, i);
    CHECK(out[i] == want, "MPI_INT MPI_SUM count %d: element %d is %d, expected %d", count, i, out[i], want);
    CHECK(in[i] == rc_int(rank, i), "MPI_INT MPI_SUM count %d: sendbuf changed at %d", count, i);
  }
  free(in);
  free(out);
}

static void double_sum(int rank, int size, int count) {
  double *in = rc_alloc(sizeof(double) * (size_t)count), *out = rc_alloc(sizeof(double) * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_double(rank, i);
  MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < count; i++) {
    double want = 0;
    for (int r = 0; r < size; r++) want += rc_double(r, i);
    CHECK(rc_close(out[i], want), "MPI_DOUBLE MPI_SUM count %d: element %d is %.17g, expected %.17g", count, i,
          out[i], want);
  }
  char what[64];
  snprintf(what, sizeof what, "MPI_DOUBLE MPI_SUM count %d", count);
  rc_check_identical(out, sizeof(double) * (size_t)count, MPI_COMM_WORLD, what);
  free(in);
  free(out);
}

static void in_place_max(int rank, int size, int count) {
  long *buf = rc_alloc(sizeof(long) * (size_t)count);
  for (int i = 0; i < count; i++) buf[i] = (long)rc_int(rank, i) * ((rank + i) % 3 - 1);
  MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < count; i++) {
    long want = (long)rc_int(0, i) * ((0 + i) % 3 - 1);
    for (int r = 1; r < size; r++) {
      long v = (long)rc_int(r, i) * ((r + i) % 3 - 1);
      if (v > want) want = v;
    }
    CHECK(buf[i] == want, "MPI_IN_PLACE MPI_LONG MPI_MAX count %d: element %d is %ld, expected %ld", count, i,
          buf[i], want);
  }
  free(buf);
}

static void pair_maxloc(int rank, int size, int count) {
  struct { int value, index; } *in = rc_alloc(8 * (size_t)count), *out = rc_alloc(8 * (size_t)count);
  for (int i = 0; i < count; i++) in[i].value = (rank + i) % size, in[i].index = rank;
  MPI_Allreduce(in, out, count, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
  for (int i = 0; i < count; i++) {
    /* The largest value is size - 1; MAXLOC keeps the lowest rank holding it. */
    int want_index = -1;
    for (int r = 0; r < size && want_index < 0; r++)
      if ((r + i) % size == size - 1) want_index = r;
    CHECK(out[i].value == size - 1 && out[i].index == want_index,
          "MPI_2INT MPI_MAXLOC count %d: element %d is (%d, %d), expected (%d, %d)", count, i, out[i].value,
          out[i].index, size - 1, want_index);
  }
  free(in);
  free(out);
}

static void matrix_product(int rank, int size, int count, MPI_Op matmul) {
  uint64_t *in = rc_alloc(8 * (size_t)count), *out = rc_alloc(8 * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_matrix(rank, i);
  MPI_Allreduce(in, out, count, MPI_UINT64_T, matmul, MPI_COMM_WORLD);
  for (int i = 0; i < count; i++) {
    uint64_t want = rc_matrix_product(0, size - 1, i);
    CHECK(out[i] == want, "non-commutative 2x2 product count %d: element %d is %llx, expected %llx (rank order)",
          count, i, (unsigned long long)out[i], (unsigned long long)want);
  }
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op matmul;
  MPI_Op_create(rc_matmul_op, 0, &matmul);

  for (size_t k = 0; k < sizeof kCounts / sizeof kCounts[0]; k++) {
    int count = kCounts[k];
    int_sum(rank, size, count);
    double_sum(rank, size, count);
    in_place_max(rank, size, count);
    if (count <= 65536) pair_maxloc(rank, size, count);
    matrix_product(rank, size, count, matmul);
  }
  /* A few MiB once: 4 MiB of doubles. */
  double_sum(rank, size, 1 << 19);

  MPI_Op_free(&matmul);
  mt_pass();
  MPI_Finalize();
  return 0;
}
