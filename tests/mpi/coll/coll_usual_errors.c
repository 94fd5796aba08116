/*
 * Blocking collectives have a short way in (api/coll_checks.h,
 * usual_intracomm ... usual_op: issue 29), taken without building the
 * call's checks: the reductions of no elements, bcast, gather, scatter,
 * allgather and alltoall at any size. An erroneous argument must still fail
 * there with the right class and a message naming the call: each case below
 * is a call that the short way must not pass, made
 * after a valid call has given the communicator its shared-memory segment
 * (the path where the short way finishes at once). Then the valid calls of
 * 0 elements still succeed, and a reduction with data still works.
 */
#define TEST_NAME "coll_usual_errors"
#include "../mpitest.h"

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  float in[64] = {0}, out[64] = {0};
  int zeros[64] = {0};
  MPI_Datatype uncommitted;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_FLOAT, &uncommitted));
  CHECK_MPI(MPI_Allreduce(in, out, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));

  mt_expect_error(MPI_Allreduce(in, out, 0, MPI_FLOAT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
                  "0 elements, MPI_OP_NULL");
  mt_expect_error(MPI_Allreduce(in, out, 0, MPI_2INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
                  "0 elements, MPI_SUM on MPI_2INT");
  mt_expect_error(MPI_Allreduce(in, out, 0, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Allreduce",
                  "0 elements, MPI_DATATYPE_NULL");
  mt_expect_error(MPI_Allreduce(in, out, 0, uncommitted, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Allreduce",
                  "0 elements, an uncommitted type");
  mt_expect_error(MPI_Allreduce(in, out, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Allreduce",
                  "0 elements, MPI_COMM_NULL");
  mt_expect_error(MPI_Reduce(in, out, 0, MPI_FLOAT, MPI_SUM, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Reduce",
                  "0 elements, root = size");
  mt_expect_error(MPI_Reduce(in, out, 0, MPI_FLOAT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Reduce",
                  "0 elements, root = -1");
  mt_expect_error(MPI_Reduce(in, out, 0, MPI_FLOAT, MPI_MAXLOC, 0, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Reduce",
                  "0 elements, MPI_MAXLOC on MPI_FLOAT");
  if (size > 1 && rank != 0)
    mt_expect_error(MPI_Reduce(MPI_IN_PLACE, out, 0, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                    "MPI_Reduce", "0 elements, MPI_IN_PLACE at a non-root");
  mt_expect_error(MPI_Reduce_scatter_block(in, out, 0, MPI_FLOAT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
                  "MPI_Reduce_scatter_block", "recvcount 0, MPI_OP_NULL");
  mt_expect_error(MPI_Reduce_scatter(in, out, zeros, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE,
                  "MPI_Reduce_scatter", "recvcounts 0, MPI_DATATYPE_NULL");
  mt_expect_error(MPI_Reduce_scatter(in, out, NULL, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG,
                  "MPI_Reduce_scatter", "recvcounts NULL");
  mt_expect_error(MPI_Scan(in, out, 0, MPI_FLOAT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Scan",
                  "0 elements, MPI_OP_NULL");
  mt_expect_error(MPI_Exscan(in, out, 0, uncommitted, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Exscan",
                  "0 elements, an uncommitted type");

  /* The data-movement calls take the short way at any size: their bad
   * arguments too. */
  char bytes[64] = {0};
  mt_expect_error(MPI_Bcast(bytes, 0, MPI_BYTE, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast",
                  "0 bytes, root = size");
  mt_expect_error(MPI_Bcast(bytes, 2, uncommitted, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast",
                  "an uncommitted type");
  mt_expect_error(MPI_Scatter(bytes, 1, MPI_BYTE, bytes + 32, 1, MPI_BYTE, -1, MPI_COMM_WORLD), MPI_ERR_ROOT,
                  "MPI_Scatter", "root = -1");
  mt_expect_error(MPI_Gather(bytes, 0, MPI_BYTE, bytes + 32, 0, MPI_BYTE, size, MPI_COMM_WORLD), MPI_ERR_ROOT,
                  "MPI_Gather", "0 bytes, root = size");
  if (rank == 0)
    mt_expect_error(MPI_Gather(bytes, 1, MPI_BYTE, bytes, 1, MPI_BYTE, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                    "MPI_Gather", "sendbuf == recvbuf at the root");
  mt_expect_error(MPI_Allgather(bytes, 0, MPI_DATATYPE_NULL, bytes + 32, 0, MPI_BYTE, MPI_COMM_WORLD), MPI_ERR_TYPE,
                  "MPI_Allgather", "0 bytes, sendtype MPI_DATATYPE_NULL");
  mt_expect_error(MPI_Alltoall(bytes, 0, MPI_BYTE, bytes + 32, -1, MPI_BYTE, MPI_COMM_WORLD), MPI_ERR_COUNT,
                  "MPI_Alltoall", "recvcount -1");
  mt_expect_error(MPI_Alltoall(bytes, 1, MPI_BYTE, bytes, 1, MPI_BYTE, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                  "MPI_Alltoall", "sendbuf == recvbuf");

  /* The valid calls of no elements, then one with data: still in step. */
  CHECK_MPI(MPI_Allreduce(in, out, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce(in, out, 0, MPI_FLOAT, MPI_SUM, size - 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce_scatter_block(in, out, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce_scatter(in, out, zeros, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Scan(in, out, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Exscan(in, out, 0, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  int x = rank + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size + 1) / 2, "allreduce after the calls of no elements: %d", sum);
  MPI_Type_free(&uncommitted);
  mt_pass();
  MPI_Finalize();
  return 0;
}
