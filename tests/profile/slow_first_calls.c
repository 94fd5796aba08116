// FERRY_PROFILE's estimate of a short function whose first calls are slow (issue 31): rank 0 sleeps
// SLOW_US before each of its first SLOW_CALLS 8-byte sends, so rank 1's first MPI_Recv calls (all
// timed: the warm-up, then the slow phase) wait for it, then FAST_CALLS sends follow at once, of
// which rank 1 times one receive in ~256. Rank 1 measures its own time in MPI_Recv and prints
// "slow_first_calls: slow <s> all <s>", the time of the first SLOW_CALLS receives and of every one,
// for tests/profile/check_report.py to hold the report's estimate against.
#include <mpi.h>
#include <stdio.h>
#include <time.h>

enum { SLOW_CALLS = 32, SLOW_US = 200, FAST_CALLS = 100000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double x = 0, slow = 0, all = 0;
  for (int i = 0; i < SLOW_CALLS + FAST_CALLS; ++i) {
    if (rank == 0) {
      if (i < SLOW_CALLS) {
        struct timespec t = {0, SLOW_US * 1000L};
        nanosleep(&t, NULL);
      }
      MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
      double start = MPI_Wtime();
      MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double t = MPI_Wtime() - start;
      all += t;
      if (i < SLOW_CALLS) slow += t;
    }
  }
  if (rank == 1) printf("slow_first_calls: slow %.6f all %.6f\n", slow, all);
  MPI_Finalize();
  return 0;
}
