/* Many nonblocking and persistent collectives with rank 0 late on each by a small fixed sleep, for
 * FERRY_PROFILE's sampled companions (src/profile/companions.h; tests/profile/check_report.py
 * "late_nonblocking"): CALLS times MPI_Iallreduce + MPI_Wait, then CALLS times MPI_Start +
 * MPI_Waitall of one persistent allreduce (MPI_Allreduce_init), rank 0 sleeping LATE_US before
 * each (2 ranks in the test). Only the first 32 calls of each and then about 1 in 512 are
 * measured, so the report's wait of rank 1, about CALLS x LATE_US in each of MPI_Wait and
 * MPI_Waitall, holds only if it scales the measured calls to all of them. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define CALLS 4000
#define LATE_US 2000

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int one = 1, total = 0, failed = 0;
  for (int i = 0; i < CALLS; ++i) {
    MPI_Request r;
    if (rank == 0) usleep(LATE_US);
    MPI_Iallreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    failed |= total != size;
  }
  MPI_Request p;
  MPI_Allreduce_init(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p);
  for (int i = 0; i < CALLS; ++i) {
    if (rank == 0) usleep(LATE_US);
    total = 0;
    MPI_Start(&p);
    MPI_Waitall(1, &p, MPI_STATUSES_IGNORE);
    failed |= total != size;
  }
  MPI_Request_free(&p);
  if (failed) printf("late_nonblocking: FAILED: a sum was not %d\n", size);
  MPI_Finalize();
  if (rank == 0 && !failed) printf("late_nonblocking: OK\n");
  return failed;
}
