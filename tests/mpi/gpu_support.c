/*
 * The GPU-support queries: MPICH's MPIX_GPU_query_support and
 * MPIX_Query_cuda_support (both exported by libmpich.so.12), and Open MPI's
 * mpi-ext.h macro. They must agree with each other, ZE and HIP are never
 * supported, an unknown GPU type is MPI_ERR_ARG, and with "--expect N" CUDA
 * support must be N (0 under FERRY_CUDA=off, or on a machine with no driver).
 * A host-only exchange follows, so that FERRY_CUDA=auto is seen to leave host
 * programs as they were.
 */
#define TEST_NAME "gpu_support"
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

/* Open MPI's header (MPICH has none; Ferry has both). */
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#if !defined(MPIX_CUDA_AWARE_SUPPORT) || !MPIX_CUDA_AWARE_SUPPORT
#error "mpi-ext.h must define MPIX_CUDA_AWARE_SUPPORT"
#endif
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int cuda = -1, ze = -1, hip = -1;
  CHECK_MPI(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &cuda));
  CHECK_MPI(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_ZE, &ze));
  CHECK_MPI(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &hip));
  CHECK(cuda == 0 || cuda == 1, "MPIX_GPU_query_support(CUDA) gave %d", cuda);
  CHECK(ze == 0 && hip == 0, "ZE %d, HIP %d: neither is supported", ze, hip);
  CHECK(MPIX_Query_cuda_support() == cuda, "MPIX_Query_cuda_support() %d, MPIX_GPU_query_support %d",
        MPIX_Query_cuda_support(), cuda);
  if (argc > 2 && strcmp(argv[1], "--expect") == 0)
    CHECK(cuda == atoi(argv[2]), "CUDA support %d, expected %s", cuda, argv[2]);

  int flag = 7;
  int rc = MPIX_GPU_query_support(42, &flag);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "an unknown GPU type gave class %d, not MPI_ERR_ARG", cls);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  CHECK(strstr(text, "MPIX_GPU_query_support") != NULL, "the error does not name the call: %s", text);

  /* Host buffers move as always. */
  int token = rank * 10, got = -1;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got == left * 10, "got %d from rank %d", got, left);
  double sum = 0, one = 1.0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size, "allreduce gave %g", sum);

  mt_pass();
  MPI_Finalize();
  return 0;
}
