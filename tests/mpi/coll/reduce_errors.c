/*
 * Erroneous reductions under MPI_ERRORS_RETURN return the right error class
 * and leave the library working (MPI-3.1 §8.3): MPI_OP_NULL and an
 * operation not defined for the datatype (MPI_ERR_OP), an invalid root
 * (MPI_ERR_ROOT), negative counts (MPI_ERR_COUNT), sendbuf == recvbuf
 * without MPI_IN_PLACE and MPI_IN_PLACE at a non-root of MPI_Reduce
 * (MPI_ERR_BUFFER), a NULL request (MPI_ERR_ARG). On 2 ranks, an allreduce
 * whose counts differ between the ranks fails on both (MPI_ERR_TRUNCATE
 * where the message was longer than expected, MPI_ERR_OTHER where shorter)
 * instead of hanging or corrupting memory.
 *
 * With FERRY_CHECK_ERROR_STRINGS (Ferry's build), the message must name the
 * call that failed.
 */
#define TEST_NAME "reduce_errors"
#include "../mpitest.h"

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int in[64] = {0}, out[64] = {0}, counts[64];
  for (int i = 0; i < 64; i++) counts[i] = 1;
  MPI_Request req;

  mt_expect_error(MPI_Allreduce(in, out, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
               "MPI_OP_NULL");
  mt_expect_error(MPI_Allreduce(in, out, 4, MPI_2INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
               "MPI_SUM on MPI_2INT");
  mt_expect_error(MPI_Reduce(in, out, 4, MPI_DOUBLE, MPI_BAND, 0, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Reduce",
               "MPI_BAND on MPI_DOUBLE");
  mt_expect_error(MPI_Allreduce(in, out, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Allreduce",
               "count -1");
  mt_expect_error(MPI_Allreduce(in, in, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Allreduce",
               "sendbuf == recvbuf");
  mt_expect_error(MPI_Scan(in, in, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Scan",
               "sendbuf == recvbuf");
  mt_expect_error(MPI_Reduce(in, out, 4, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Reduce",
               "root = size");
  mt_expect_error(MPI_Reduce(in, out, 4, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Reduce",
               "root = -1");
  mt_expect_error(MPI_Ireduce(in, out, 4, MPI_INT, MPI_SUM, size + 3, MPI_COMM_WORLD, &req), MPI_ERR_ROOT,
               "MPI_Ireduce", "root = size + 3");
  if (size > 1 && rank != 0) {
    /* Only this rank's call is erroneous: it returns before communicating,
     * and the root's matching call is not made either. */
    mt_expect_error(MPI_Reduce(MPI_IN_PLACE, out, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "MPI_Reduce", "MPI_IN_PLACE at a non-root");
  }
  counts[size - 1] = -2;
  mt_expect_error(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
               "MPI_Reduce_scatter", "recvcounts[size-1] = -2");
  mt_expect_error(MPI_Reduce_scatter_block(in, out, -4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
               "MPI_Reduce_scatter_block", "recvcount -4");
  mt_expect_error(MPI_Iallreduce(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Iallreduce",
               "request NULL");

  /* Different counts on the two ranks: both calls fail, neither hangs. */
  if (size == 2) {
    int n = rank == 0 ? 10 : 20;
    int rc = MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* MPI_ERR_TRUNCATE or MPI_ERR_OTHER, by the side of the mismatch a rank is on. */
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    mt_expect_error(rc, cls == MPI_ERR_OTHER ? MPI_ERR_OTHER : MPI_ERR_TRUNCATE, "MPI_Allreduce",
                    "counts 10 and 20");
  }

  /* Still working. */
  int x = rank + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size + 1) / 2, "allreduce after the errors: %d", sum);
  mt_pass();
  MPI_Finalize();
  return 0;
}
