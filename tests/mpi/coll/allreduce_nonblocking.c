/*
 * Nonblocking reductions (MPI-3.1 §5.12): several outstanding on one
 * communicator, of every kind and size, started in the same order on every
 * rank and completed in a different order (MPI_Waitall, MPI_Test polling,
 * MPI_Wait in reverse), while point-to-point messages flow on the same
 * communicator; all results are right. A user operation freed while its
 * reduction is in flight still works (§5.9.5), and MPI_Request_free on an
 * active collective is harmless.
 */
#define TEST_NAME "allreduce_nonblocking"
#include "../mpitest.h"
#include "reduction_check.h"

enum { kOps = 7 };

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int counts[kOps] = {1, 1000, 300007, 17, 65536, 4099, 3};
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;

  for (int iteration = 0; iteration < 3; iteration++) {
    int *in[kOps], *out[kOps];
    MPI_Request req[kOps + 2];
    for (int k = 0; k < kOps; k++) {
      in[k] = rc_alloc(sizeof(int) * (size_t)counts[k] * (size_t)size);
      out[k] = rc_alloc(sizeof(int) * (size_t)counts[k] * (size_t)size);
      for (long i = 0; i < (long)counts[k] * size; i++) in[k][i] = rc_int(rank + k, i), out[k][i] = -7;
    }
    /* A user op freed right after its reduction starts. */
    MPI_Op matmul;
    MPI_Op_create(rc_matmul_op, 0, &matmul);
    uint64_t *min = rc_alloc(8 * 4099), *mout = rc_alloc(8 * 4099);
    for (int i = 0; i < 4099; i++) min[i] = rc_matrix(rank, i);

    MPI_Iallreduce(in[0], out[0], counts[0], MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Iallreduce(in[1], out[1], counts[1], MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req[1]);
    MPI_Iallreduce(in[2], out[2], counts[2], MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[2]);
    MPI_Ireduce(in[3], out[3], counts[3], MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD, &req[3]);
    MPI_Ireduce_scatter_block(in[4], out[4], counts[4], MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[4]);
    MPI_Iscan(in[5], out[5], counts[5], MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[5]);
    MPI_Iexscan(in[6], out[6], counts[6], MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[6]);
    MPI_Request mreq;
    MPI_Iallreduce(min, mout, 4099, MPI_UINT64_T, matmul, MPI_COMM_WORLD, &mreq);
    MPI_Op_free(&matmul);

    /* Point-to-point on the same communicator while they run. */
    int token_out = rank * 100 + iteration, token_in = -1;
    MPI_Irecv(&token_in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &req[kOps]);
    MPI_Isend(&token_out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &req[kOps + 1]);

    if (iteration == 0) {
      MPI_Waitall(kOps + 2, req, MPI_STATUSES_IGNORE);
    } else if (iteration == 1) {
      for (int k = kOps + 1; k >= 0; k--) MPI_Wait(&req[k], MPI_STATUS_IGNORE);
    } else {
      for (int k = 0; k < kOps + 2; k++) mt_wait_test(&req[k], MPI_STATUS_IGNORE, "nonblocking reduction");
    }
    MPI_Wait(&mreq, MPI_STATUS_IGNORE);
    for (int k = 0; k < kOps + 2; k++) CHECK(req[k] == MPI_REQUEST_NULL, "request %d not MPI_REQUEST_NULL", k);
    CHECK(token_in == left * 100 + iteration, "point-to-point token %d, expected %d", token_in,
          left * 100 + iteration);

    for (int k = 0; k < kOps; k++) {
      int n = k == 4 ? counts[k] : counts[k];
      for (int i = 0; i < n; i++) {
        long index = k == 4 ? (long)rank * counts[k] + i : i;
        int sum = 0, max = rc_int(k, index), upto = 0;
        for (int r = 0; r < size; r++) {
          int v = rc_int(r + k, index);
          sum += v;
          if (v > max) max = v;
          if (r <= rank - (k == 6)) upto += v;
        }
        int want = k == 1 ? max : (k == 5 || k == 6) ? upto : sum;
        if (k == 3 && rank != size - 1) want = -7;
        if (k == 6 && rank == 0) want = -7;
        CHECK(out[k][i] == want, "iteration %d operation %d count %d: element %d is %d, expected %d", iteration, k,
              counts[k], i, out[k][i], want);
      }
    }
    for (int i = 0; i < 4099; i++)
      CHECK(mout[i] == rc_matrix_product(0, size - 1, i), "freed user op: element %d wrong", i);
    for (int k = 0; k < kOps; k++) free(in[k]), free(out[k]);
    free(min);
    free(mout);
  }

  /* MPI_Request_free on an active collective: the operation still completes
   * (a later blocking collective on the communicator orders after it). */
  int x = rank, sum = -1;
  MPI_Request r;
  MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
  int again = -1;
  MPI_Allreduce(&x, &again, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(again == size * (size - 1) / 2, "blocking allreduce after a freed request: %d", again);

  mt_pass();
  MPI_Finalize();
  return 0;
}
