/*
 * MPI_Scan and MPI_Exscan give rank r the reduction of ranks 0..r (scan) or
 * 0..r-1 (exscan; rank 0's buffer is left alone) (MPI-3.1 §5.11), for counts
 * from 0 to a few MiB: integer sums, MPI_IN_PLACE, and a non-commutative
 * user operation in rank order.
 */
#define TEST_NAME "scan_exscan"
#include "../mpitest.h"
#include "reduction_check.h"

static void check_int(int rank, int count, int exclusive, int in_place) {
  int *in = rc_alloc(sizeof(int) * (size_t)count), *out = rc_alloc(sizeof(int) * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_int(rank, i), out[i] = in_place ? in[i] : -7;
  const void *send = in_place ? MPI_IN_PLACE : in;
  if (exclusive) MPI_Exscan(send, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  else MPI_Scan(send, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!exclusive || rank > 0) {
    for (int i = 0; i < count; i++) {
      int want = 0;
      for (int r = 0; r <= rank - exclusive; r++) want += rc_int(r, i);
      CHECK(out[i] == want, "%s MPI_INT count %d%s: element %d is %d, expected %d", exclusive ? "Exscan" : "Scan",
            count, in_place ? " in place" : "", i, out[i], want);
    }
  }
  free(in);
  free(out);
}

static void check_matrix(int rank, int count, int exclusive, MPI_Op matmul) {
  uint64_t *in = rc_alloc(8 * (size_t)count), *out = rc_alloc(8 * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_matrix(rank, i);
  if (exclusive) MPI_Exscan(in, out, count, MPI_UINT64_T, matmul, MPI_COMM_WORLD);
  else MPI_Scan(in, out, count, MPI_UINT64_T, matmul, MPI_COMM_WORLD);
  if (!exclusive || rank > 0) {
    for (int i = 0; i < count; i++) {
      uint64_t want = rc_matrix_product(0, rank - exclusive, i);
      CHECK(out[i] == want, "non-commutative %s count %d: element %d is %llx, expected %llx",
            exclusive ? "Exscan" : "Scan", count, i, (unsigned long long)out[i], (unsigned long long)want);
    }
  }
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  static const int kCounts[] = {0, 1, 3, 100, 4099, 65536, 300007};
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Op matmul;
  MPI_Op_create(rc_matmul_op, 0, &matmul);
  for (size_t k = 0; k < sizeof kCounts / sizeof kCounts[0]; k++) {
    for (int exclusive = 0; exclusive < 2; exclusive++) {
      check_int(rank, kCounts[k], exclusive, 0);
      check_int(rank, kCounts[k], exclusive, 1);
      check_matrix(rank, kCounts[k], exclusive, matmul);
    }
  }
  MPI_Op_free(&matmul);
  mt_pass();
  MPI_Finalize();
  return 0;
}
