/*
 * MPI_Scan and MPI_Exscan through shared memory (coll/shm) give rank r the
 * rank-order fold of ranks 0..r (scan) or 0..r-1 (exscan) for every
 * (datatype, operation) pair MPI_Reduce_local takes (reduction_pairs.h),
 * in place and not, with counts whose bytes fit a slot and counts that take
 * a cell, and a non-commutative operation: the last rank, which writes no
 * cell of its own, and the others, which read their own operand where it
 * is, all combine the right operands in the right order.
 */
#define TEST_NAME "shm_scan_pairs"
#include "../mpitest.h"
#include "reduction_check.h"
#include "reduction_pairs.h"

static void pairs(int rank, int count) {
  size_t bytes = (size_t)count * 32;
  char *in = rc_alloc(bytes), *out = rc_alloc(bytes), *ref = rc_alloc(bytes), *tmp = rc_alloc(bytes);
  char *pa = rc_alloc(bytes * 2), *pb = rc_alloc(bytes * 2);
  int checked = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    const struct type_info *t = &types[ti];
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
      /* Every rank asks Reduce_local about the whole job, so all skip alike. */
      int size;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      if (!rp_reference(t, ops[oi].op, count, size, ref, tmp)) continue;
      checked++;
      for (int exclusive = 0; exclusive < 2; exclusive++)
        for (int in_place = 0; in_place < 2; in_place++) {
          fill_input(t, in, count, rank);
          if (in_place) memcpy(out, in, bytes);
          else memset(out, 0, bytes);
          const void *send = in_place ? MPI_IN_PLACE : in;
          if (exclusive) CHECK_MPI(MPI_Exscan(send, out, count, t->type, ops[oi].op, MPI_COMM_WORLD));
          else CHECK_MPI(MPI_Scan(send, out, count, t->type, ops[oi].op, MPI_COMM_WORLD));
          /* The fold of ranks 0..last: rp_reference over last + 1 ranks. */
          int last = exclusive ? rank - 1 : rank;
          if (last < 0) continue;
          rp_reference(t, ops[oi].op, count, last + 1, ref, tmp);
          CHECK(same_data(out, ref, count, t->type, pa, pb, (int)bytes * 2), "%s %d x %s %s%s differs on rank %d",
                exclusive ? "Exscan" : "Scan", count, t->name, ops[oi].name, in_place ? " in place" : "", rank);
        }
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK(checked >= 100, "only %d (datatype, op) pairs accepted", checked);
  free(in); free(out); free(ref); free(tmp); free(pa); free(pb);
}

static void non_commutative(int rank, int count) {
  MPI_Op matmul;
  MPI_Op_create(rc_matmul_op, 0, &matmul);
  uint64_t *m = rc_alloc(sizeof(uint64_t) * (size_t)count), *p = rc_alloc(sizeof(uint64_t) * (size_t)count);
  for (int in_place = 0; in_place < 2; in_place++) {
    for (int i = 0; i < count; i++) m[i] = rc_matrix(rank, i), p[i] = in_place ? m[i] : 0;
    MPI_Scan(in_place ? MPI_IN_PLACE : m, p, count, MPI_UINT64_T, matmul, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++)
      CHECK(p[i] == rc_matrix_product(0, rank, i), "non-commutative scan %d%s: [%d] on rank %d", count,
            in_place ? " in place" : "", i, rank);
    for (int i = 0; i < count; i++) p[i] = in_place ? m[i] : 0;
    MPI_Exscan(in_place ? MPI_IN_PLACE : m, p, count, MPI_UINT64_T, matmul, MPI_COMM_WORLD);
    if (rank > 0)
      for (int i = 0; i < count; i++)
        CHECK(p[i] == rc_matrix_product(0, rank - 1, i), "non-commutative exscan %d%s: [%d] on rank %d", count,
              in_place ? " in place" : "", i, rank);
  }
  MPI_Op_free(&matmul);
  free(m); free(p);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* 1 and 7 elements: in a slot; 300: above a slot's 1,072 bytes for
   * types of 4 bytes and more (a cell), below it for the 1- and 2-byte ones. */
  static const int counts[] = {1, 7, 300};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) pairs(rank, counts[k]);
  static const int matrices[] = {1, 134, 135, 1000};  /* 1,072 and 1,080 bytes: either side of a slot */
  for (size_t k = 0; k < sizeof matrices / sizeof matrices[0]; k++) non_commutative(rank, matrices[k]);
  /* Many in a row: every slot of the ring reused. */
  for (int i = 0; i < 200; i++) {
    int x = rank + i, s = -1;
    MPI_Scan(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(s == rank * (rank + 1) / 2 + (rank + 1) * i, "scan %d: %d on rank %d", i, s, rank);
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
