/*
 * A rank that dies without MPI_Abort (killed by a signal) ends the job:
 * mpirun notices, ends the other ranks, which are blocked in MPI_Recv on the
 * dead one, and exits with a non-zero status. Judged from outside by
 * run_mpi_test.sh (exit status, time limit, no rank left running).
 *
 * Usage: crash kill|segv   (the last rank raises SIGKILL or SIGSEGV)
 */
#define TEST_NAME "crash"
#include "mpitest.h"

#include <signal.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc == 2, "usage: crash kill|segv");
  const int sig = strcmp(argv[1], "segv") == 0 ? SIGSEGV : SIGKILL;
  const int victim = size - 1;

  mt_block_all_but(victim);
  printf("%s: rank %d of %d raises signal %d\n", TEST_NAME, rank, size, sig);
  fflush(stdout);
  /* The default action, whatever handler the library may have installed. */
  signal(sig, SIG_DFL);
  raise(sig);
  fprintf(stderr, "%s: rank %d: FAILED: still alive after raising signal %d\n", TEST_NAME, rank,
          sig);
  return 3;
}
