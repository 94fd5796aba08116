/*
 * MPI_Reduce delivers the reference result at every root, for counts from 0
 * to a few MiB: integer sums (exact), double sums (to rounding), MINLOC on
 * pairs, MPI_IN_PLACE at the root, and a non-commutative user operation in
 * rank order (MPI-3.1 §5.9.1). The send buffer is never written and the
 * receive buffer of other ranks is not touched. Every (datatype, operation)
 * pair MPI_Reduce_local takes, at a few elements and at more than the
 * shared-memory cell (16 KiB) in every type, so that the message-based
 * algorithms see each pair, in place and not, at rotating roots.
 *
 * Run once per algorithm with FERRY_REDUCE_ALGORITHM.
 */
#define TEST_NAME "reduce_algorithms"
#include "../mpitest.h"
#include "reduction_check.h"
#include "reduction_pairs.h"

static const int kCounts[] = {0, 1, 2, 3, 7, 64, 1000, 4099, 65536, 300007};

static void int_sum(int rank, int size, int count, int root, int in_place) {
  int *in = rc_alloc(sizeof(int) * (size_t)count), *out = rc_alloc(sizeof(int) * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_int(rank, i), out[i] = in_place ? rc_int(rank, i) : -7;
  const void *send = in_place && rank == root ? MPI_IN_PLACE : in;
  MPI_Reduce(send, out, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  for (int i = 0; i < count; i++) {
    int want = 0;
    for (int r = 0; r < size; r++) want += rc_int(r, i);
    if (rank != root) want = in_place ? rc_int(rank, i) : -7; /* untouched */
    CHECK(out[i] == want, "MPI_INT MPI_SUM count %d root %d%s: element %d is %d, expected %d", count, root,
          in_place ? " in place" : "", i, out[i], want);
    CHECK(in[i] == rc_int(rank, i), "count %d root %d: sendbuf changed at %d", count, root, i);
  }
  free(in);
  free(out);
}

static void double_sum(int rank, int size, int count, int root) {
  double *in = rc_alloc(sizeof(double) * (size_t)count), *out = rc_alloc(sizeof(double) * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_double(rank, i);
  MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
  if (rank == root) {
    for (int i = 0; i < count; i++) {
      double want = 0;
      for (int r = 0; r < size; r++) want += rc_double(r, i);
      CHECK(rc_close(out[i], want), "MPI_DOUBLE MPI_SUM count %d root %d: element %d is %.17g, expected %.17g",
            count, root, i, out[i], want);
    }
  }
  free(in);
  free(out);
}

static void pair_minloc(int rank, int size, int count, int root) {
  struct { int value, index; } *in = rc_alloc(8 * (size_t)count), *out = rc_alloc(8 * (size_t)count);
  for (int i = 0; i < count; i++) in[i].value = (rank + i) % size, in[i].index = rank;
  MPI_Reduce(in, out, count, MPI_2INT, MPI_MINLOC, root, MPI_COMM_WORLD);
  if (rank == root) {
    for (int i = 0; i < count; i++) {
      int want_index = -1;
      for (int r = 0; r < size && want_index < 0; r++)
        if ((r + i) % size == 0) want_index = r;
      CHECK(out[i].value == 0 && out[i].index == want_index,
            "MPI_2INT MPI_MINLOC count %d root %d: element %d is (%d, %d), expected (0, %d)", count, root, i,
            out[i].value, out[i].index, want_index);
    }
  }
  free(in);
  free(out);
}

static void matrix_product(int rank, int size, int count, int root, MPI_Op matmul, int in_place) {
  uint64_t *in = rc_alloc(8 * (size_t)count), *out = rc_alloc(8 * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_matrix(rank, i), out[i] = in[i];
  const void *send = in_place && rank == root ? MPI_IN_PLACE : in;
  MPI_Reduce(send, out, count, MPI_UINT64_T, matmul, root, MPI_COMM_WORLD);
  if (rank == root) {
    for (int i = 0; i < count; i++) {
      uint64_t want = rc_matrix_product(0, size - 1, i);
      CHECK(out[i] == want, "non-commutative product count %d root %d%s: element %d is %llx, expected %llx", count,
            root, in_place ? " in place" : "", i, (unsigned long long)out[i], (unsigned long long)want);
    }
  }
  free(in);
  free(out);
}

/* One pair MPI_Reduce_local takes: the root and in place or not rotate
 * with the pair, and the root holds the rank-order fold. */
static void reduce_pair(const struct rp_pair *p, void *unused) {
  int root = (int)(p->ti + p->oi) % p->size, in_place = (int)(p->ti + p->oi / 2) % 2;
  memset(p->out, 0, p->bytes);
  if (p->rank == root && in_place) {
    memcpy(p->out, p->in, p->bytes);
    CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, p->out, p->count, p->t->type, p->op, root, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Reduce(p->in, p->out, p->count, p->t->type, p->op, root, MPI_COMM_WORLD));
  }
  if (p->rank == root)
    CHECK(rp_out_is_ref(p), "reduce %d x %s %s to %d%s differs", p->count, p->t->name, p->op_name, root,
          in_place ? " in place" : "");
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
    /* Every root for small vectors; the first and last for large ones. */
    for (int root = 0; root < size; root++) {
      if (count > 4099 && root != 0 && root != size - 1) continue;
      int_sum(rank, size, count, root, 0);
      int_sum(rank, size, count, root, 1);
      double_sum(rank, size, count, root);
      if (count <= 65536) pair_minloc(rank, size, count, root);
      matrix_product(rank, size, count, root, matmul, root % 2);
    }
  }
  rp_for_each_pair(3, rank, size, reduce_pair, NULL);
  rp_for_each_pair(20000, rank, size, reduce_pair, NULL);
  MPI_Op_free(&matmul);
  mt_pass();
  MPI_Finalize();
  return 0;
}
