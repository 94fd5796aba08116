/*
 * Reductions on derived datatypes with user operations (MPI-3.1 §5.9.5):
 * a contiguous type (a 2x2 matrix of MPI_UINT16_T, multiplied: also
 * non-commutative), a vector with holes (the holes of the receive buffer
 * must keep their bytes), and a resized type with a negative lower bound.
 * MPI_Allreduce (with MPI_IN_PLACE too), MPI_Reduce and
 * MPI_Reduce_scatter_block, counts up to about half a MiB.
 *
 * Run once per allreduce algorithm with FERRY_ALLREDUCE_ALGORITHM.
 */
#define TEST_NAME "allreduce_derived"
#include "../mpitest.h"
#include "reduction_check.h"

/* The vector type: 2 ints 3 ints apart (ints 1 and 2 of each element are
 * holes); the operation sums the ints that are data. */
enum { kStride = 3, kVectorInts = 4 /* extent in ints */ };
static void vector_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  int *a = (int *)in, *b = (int *)inout;
  for (int i = 0; i < *len; i++) {
    b[kVectorInts * i] += a[kVectorInts * i];
    b[kVectorInts * i + kStride] += a[kVectorInts * i + kStride];
  }
}

/* The resized type: one int with lb -8 and extent 16 (data at 0; 12 bytes
 * of each 16 are outside the data). The operation is max. */
static void resized_max(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  int *a = (int *)in, *b = (int *)inout;
  for (int i = 0; i < *len; i++)
    if (a[4 * i] > b[4 * i]) b[4 * i] = a[4 * i];
}

static const int kHole = 0x5a5a5a5a;

static void matrix(int rank, int size, int count, MPI_Datatype t, MPI_Op op, int in_place) {
  uint64_t *in = rc_alloc(8 * (size_t)count), *out = rc_alloc(8 * (size_t)count);
  for (int i = 0; i < count; i++) in[i] = rc_matrix(rank, i), out[i] = in[i];
  MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, t, op, MPI_COMM_WORLD);
  for (int i = 0; i < count; i++)
    CHECK(out[i] == rc_matrix_product(0, size - 1, i), "matrix type count %d%s: element %d wrong", count,
          in_place ? " in place" : "", i);
  char what[64];
  snprintf(what, sizeof what, "matrix type count %d", count);
  rc_check_identical(out, 8 * (size_t)count, MPI_COMM_WORLD, what);
  free(in);
  free(out);
}

static void vector(int rank, int size, int count, MPI_Datatype t, MPI_Op op, int mode) {
  size_t ints = (size_t)kVectorInts * (size_t)count;
  int *in = rc_alloc(sizeof(int) * ints), *out = rc_alloc(sizeof(int) * ints);
  for (size_t j = 0; j < ints; j++) {
    int data = j % kVectorInts == 0 || j % kVectorInts == kStride;
    in[j] = data ? rc_int(rank, (long)j) : kHole + 1;
    out[j] = mode == 1 && data ? in[j] : kHole;
  }
  const char *name = mode == 0 ? "Allreduce" : mode == 1 ? "Allreduce in place" : "Reduce";
  if (mode == 2) MPI_Reduce(in, out, count, t, op, size - 1, MPI_COMM_WORLD);
  else MPI_Allreduce(mode == 1 ? MPI_IN_PLACE : in, out, count, t, op, MPI_COMM_WORLD);
  if (mode == 2 && rank != size - 1) count = 0;
  for (size_t j = 0; j < (size_t)kVectorInts * (size_t)count; j++) {
    int data = j % kVectorInts == 0 || j % kVectorInts == kStride, want = kHole;
    if (data) {
      want = 0;
      for (int r = 0; r < size; r++) want += rc_int(r, (long)j);
    }
    CHECK(out[j] == want, "vector type %s count %d: int %zu (%s) is %d, expected %d", name, count, j,
          data ? "data" : "hole", out[j], want);
  }
  free(in);
  free(out);
}

static void resized(int rank, int size, int count, MPI_Datatype t, MPI_Op op) {
  /* recvcount elements per rank; element i's data at int 4i. */
  size_t ints = 4 * (size_t)count * (size_t)size;
  int *in = rc_alloc(sizeof(int) * ints), *out = rc_alloc(sizeof(int) * 4 * (size_t)count);
  for (size_t j = 0; j < ints; j++) in[j] = j % 4 == 0 ? rc_int(rank, (long)j) * (rank % 2 ? -1 : 1) : kHole + 2;
  for (size_t j = 0; j < 4 * (size_t)count; j++) out[j] = kHole;
  MPI_Reduce_scatter_block(in, out, count, t, op, MPI_COMM_WORLD);
  for (size_t j = 0; j < 4 * (size_t)count; j++) {
    size_t global = 4 * (size_t)count * (size_t)rank + j;
    int want = kHole;
    if (j % 4 == 0) {
      want = rc_int(0, (long)global);
      for (int r = 1; r < size; r++) {
        int v = rc_int(r, (long)global) * (r % 2 ? -1 : 1);
        if (v > want) want = v;
      }
    }
    CHECK(out[j] == want, "resized type Reduce_scatter_block count %d: int %zu is %d, expected %d", count, j, out[j],
          want);
  }
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  static const int kCounts[] = {0, 1, 2, 5, 1000, 70001};
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Datatype matrix_type, vector_type, resized_type;
  MPI_Type_contiguous(4, MPI_UINT16_T, &matrix_type);
  MPI_Type_commit(&matrix_type);
  MPI_Type_vector(2, 1, kStride, MPI_INT, &vector_type);
  MPI_Datatype vector_padded;
  MPI_Type_create_resized(vector_type, 0, kVectorInts * (MPI_Aint)sizeof(int), &vector_padded);
  MPI_Type_commit(&vector_padded);
  MPI_Type_create_resized(MPI_INT, -8, 16, &resized_type);
  MPI_Type_commit(&resized_type);
  MPI_Op matmul, vsum, rmax;
  MPI_Op_create(rc_matmul_op, 0, &matmul);
  MPI_Op_create(vector_sum, 1, &vsum);
  MPI_Op_create(resized_max, 1, &rmax);

  for (size_t k = 0; k < sizeof kCounts / sizeof kCounts[0]; k++) {
    int count = kCounts[k];
    matrix(rank, size, count, matrix_type, matmul, 0);
    matrix(rank, size, count, matrix_type, matmul, 1);
    for (int mode = 0; mode < 3; mode++) vector(rank, size, count, vector_padded, vsum, mode);
    resized(rank, size, count, resized_type, rmax);
  }

  MPI_Op_free(&matmul);
  MPI_Op_free(&vsum);
  MPI_Op_free(&rmax);
  MPI_Type_free(&matrix_type);
  MPI_Type_free(&vector_type);
  MPI_Type_free(&vector_padded);
  MPI_Type_free(&resized_type);
  mt_pass();
  MPI_Finalize();
  return 0;
}
