/*
 * Reductions whose ranks pass different datatypes of the same type
 * signature, as MPI allows (MPI-4.0 §6.1: the signatures must match, the
 * type maps need not): nothing that decides how a call runs may rest on a
 * rank's own datatype.
 *
 * 1. MPI_SUM over 3 x 8192 ints: even ranks pass MPI_INT, odd ranks
 *    MPI_Type_contiguous(3, MPI_INT) (12-byte elements, which do not divide
 *    a cell). Across pretended hosts (FERRY_COLL_TEST_RANKS_PER_HOST) the
 *    hierarchical algorithms cut each host's data into cell-sized pieces of
 *    whole elements: ranks cutting by their own element took different
 *    pieces and failed.
 * 2. A commutative user-defined sum over 4 ints: even ranks pass MPI_INT,
 *    odd ranks a vector of 4 ints with stride 2, whose gaps stay untouched;
 *    MPI_Allreduce, MPI_Reduce, MPI_Iallreduce, MPI_Scan. On one host the
 *    contiguous ranks took the segment and the others messages (the calls
 *    failed: "do all ranks pass the same datatypes?"; across hosts they
 *    waited for ever): the segment's cells now hold packed data, and a
 *    strided rank unpacks each operand for the user's function.
 */
#define TEST_NAME "mixed_types"
#include "../mpitest.h"

#define N (3 * 8192)

static MPI_Datatype strided; /* 4 ints, stride 2 */

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  const int *a = in;
  int *b = inout;
  if (*type == MPI_INT) {
    for (int i = 0; i < *len; i++) b[i] += a[i];
  } else {
    CHECK(*type == strided, "the user function got a datatype this rank did not pass");
    for (int e = 0; e < *len; e++)
      for (int i = 0; i < 4; i++) b[8 * e + 2 * i] += a[8 * e + 2 * i];
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int odd = rank % 2;
  const int sum_of_ranks = size * (size - 1) / 2;

  /* 1. Same signature, different element sizes, MPI_SUM. */
  MPI_Datatype triple;
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  int *in = mt_malloc(sizeof(int) * N), *out = mt_malloc(sizeof(int) * N);
  for (int i = 0; i < N; i++) in[i] = rank + i % 7;
  for (int rep = 0; rep < 3; rep++) {
    for (int i = 0; i < N; i++) out[i] = -1;
    if (odd) CHECK_MPI(MPI_Allreduce(in, out, N / 3, triple, MPI_SUM, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
      CHECK(out[i] == sum_of_ranks + size * (i % 7), "allreduce %d: element %d is %d, expected %d", rep, i, out[i],
            sum_of_ranks + size * (i % 7));
    const int root = rep % size;
    for (int i = 0; i < N; i++) out[i] = -1;
    if (odd) CHECK_MPI(MPI_Reduce(in, out, N / 3, triple, MPI_SUM, root, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Reduce(in, out, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    for (int i = 0; rank == root && i < N; i++)
      CHECK(out[i] == sum_of_ranks + size * (i % 7), "reduce %d to %d: element %d is %d", rep, root, i, out[i]);
  }
  free(in);
  free(out);
  MPI_Type_free(&triple);

  /* 2. Same signature, contiguous on some ranks, strided on others, a user's sum. */
  MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Op op;
  CHECK_MPI(MPI_Op_create(user_sum, 1, &op));
  for (int rep = 0; rep < 12; rep++) {
    int s[8], r[8];
    for (int i = 0; i < 8; i++) {
      s[i] = rank + 1;
      r[i] = -5;
    }
    /* Kind k: 0 allreduce, 1 reduce to rank 1, 2 iallreduce, 3 scan. */
    const int k = rep % 4;
    const MPI_Datatype t = odd ? strided : MPI_INT;
    const int n = odd ? 1 : 4;
    MPI_Request req;
    switch (k) {
      case 0: CHECK_MPI(MPI_Allreduce(s, r, n, t, op, MPI_COMM_WORLD)); break;
      case 1: CHECK_MPI(MPI_Reduce(s, r, n, t, op, 1, MPI_COMM_WORLD)); break;
      case 2:
        CHECK_MPI(MPI_Iallreduce(s, r, n, t, op, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        break;
      default: CHECK_MPI(MPI_Scan(s, r, n, t, op, MPI_COMM_WORLD)); break;
    }
    const int want = k == 3 ? (rank + 1) * (rank + 2) / 2 : size * (size + 1) / 2;
    for (int i = 0; i < 4 && (k != 1 || rank == 1); i++) {
      const int at = odd ? 2 * i : i;
      CHECK(r[at] == want, "user-defined call %d (kind %d): element %d is %d, expected %d", rep, k, i, r[at], want);
      if (odd) CHECK(r[2 * i + 1] == -5, "user-defined call %d (kind %d) wrote the gap after element %d", rep, k, i);
    }
  }
  MPI_Op_free(&op);
  MPI_Type_free(&strided);
  mt_pass();
  MPI_Finalize();
  return 0;
}
