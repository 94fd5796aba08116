/* FERRY_PROFILE's companion barriers (src/profile/companions.h) against a communicator freed while
 * its companions still wait, whose context id a new communicator would take: the new one's
 * companions must not match the old one's messages. 3 ranks (tests/profile/check_report.py
 * reused_context runs it with the binomial Ibcast and no shared-memory collectives, so that ranks 0
 * and 1 finish theirs without rank 2):
 *
 *   - a = MPI_Comm_dup(MPI_COMM_WORLD); ranks 0 and 1 MPI_Ibcast on it from rank 0 and complete it
 *     by MPI_Test (which waits for no companion), then free it. Their companions wait for rank 2,
 *     which has not started its MPI_Ibcast yet; rank 1's has sent rank 0 its second round already.
 *   - b = MPI_Comm_create_group of ranks 0 and 1 (an agreement between them alone: a's context id
 *     is free there once a is destroyed). Rank 1 sleeps LATE_US, then both MPI_Iallreduce on b
 *     and MPI_Wait. b's first companion has the same tag as a's first: had b taken a's context,
 *     rank 0's would match rank 1's message of a's companion at once, and rank 0's wait in MPI_Wait
 *     would be near 0 instead of LATE_US.
 *   - rank 0 tells rank 2 to go on; rank 2 does its MPI_Ibcast on a and frees it.
 *
 * The report's MPI_Wait wait of rank 0 must be near LATE_US (check_report.py). Prints
 * "reused_context: OK" after checking the results. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define LATE_US 600000

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, failures = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0) printf("reused_context: needs 3 ranks\n");
    MPI_Finalize();
    return 1;
  }

  MPI_Comm a;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  int value = rank == 0 ? 42 : -1;
  MPI_Request r;
  if (rank < 2) {
    MPI_Ibcast(&value, 1, MPI_INT, 0, a, &r);
    for (int done = 0; !done;) MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    MPI_Comm_free(&a);

    MPI_Group world, pair;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int members[2] = {0, 1};
    MPI_Group_incl(world, 2, members, &pair);
    MPI_Comm b;
    MPI_Comm_create_group(MPI_COMM_WORLD, pair, 7, &b);
    if (rank == 1) usleep(LATE_US);
    int sum = -1;
    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, b, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (sum != 1) {
      printf("reused_context: FAILED: rank %d: iallreduce on b gave %d\n", rank, sum);
      ++failures;
    }
    MPI_Comm_free(&b);
    MPI_Group_free(&pair);
    MPI_Group_free(&world);
    if (rank == 0) MPI_Send(&value, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
  } else {
    int go;
    MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Ibcast(&value, 1, MPI_INT, 0, a, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_free(&a);
  }
  if (value != 42) {
    printf("reused_context: FAILED: rank %d: ibcast on a gave %d\n", rank, value);
    ++failures;
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && failures == 0) printf("reused_context: OK\n");
  MPI_Finalize();
  return failures != 0;
}
