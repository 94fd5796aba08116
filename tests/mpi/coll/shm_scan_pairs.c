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

/* One pair MPI_Reduce_local takes, by MPI_Scan and MPI_Exscan, in place
 * and not: rank r holds the rank-order fold of ranks 0..r (0..r-1). */
static void scan_pair(const struct rp_pair *p, void *unused) {
  for (int exclusive = 0; exclusive < 2; exclusive++)
    for (int in_place = 0; in_place < 2; in_place++) {
      if (in_place) memcpy(p->out, p->in, p->bytes);
      else memset(p->out, 0, p->bytes);
      const void *send = in_place ? MPI_IN_PLACE : p->in;
      if (exclusive) CHECK_MPI(MPI_Exscan(send, p->out, p->count, p->t->type, p->op, MPI_COMM_WORLD));
      else CHECK_MPI(MPI_Scan(send, p->out, p->count, p->t->type, p->op, MPI_COMM_WORLD));
      /* The fold of ranks 0..last: rp_reference over last + 1 ranks. */
      int last = exclusive ? p->rank - 1 : p->rank;
      if (last < 0) continue;
      rp_reference(p->t, p->op, p->count, last + 1, p->ref, p->tmp);
      CHECK(rp_out_is_ref(p), "%s %d x %s %s%s differs on rank %d", exclusive ? "Exscan" : "Scan", p->count,
            p->t->name, p->op_name, in_place ? " in place" : "", p->rank);
    }
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
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* 1 and 7 elements: in a slot; 300: above a slot's 1,072 bytes for
   * types of 4 bytes and more (a cell), below it for the 1- and 2-byte ones. */
  static const int counts[] = {1, 7, 300};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
    rp_for_each_pair(counts[k], rank, size, scan_pair, NULL);
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
