/* A program where rank 0 arrives a known time late, for FERRY_PROFILE's late-partner wait
 * (src/profile/late_partners.h; tests/profile/check_report.py "late_partners").
 *
 * ROUNDS times each, rank 0 sleeping LATE_MS first every time:
 *   MPI_Barrier on every rank;
 *   MPI_Allreduce of one int on every rank;
 *   MPI_Iallreduce and MPI_Wait on every rank; MPI_Ibcast from rank 0 and MPI_Waitall; a persistent
 *   allreduce (MPI_Allreduce_init once) started with MPI_Start, then MPI_Wait; MPI_Bcast from rank 0
 *   on an intercommunicator between ranks {0, 1} and the others (src/profile/companions.h);
 *   rank 0 sends to ranks 1, 2 and 3, which posted MPI_Irecv and wait in MPI_Waitall (rank 1, with
 *   a receive from rank 2 that is there first), MPI_Waitany (rank 2) and MPI_Waitsome (rank 3);
 *   rank 0 sends to rank 1, which waits in MPI_Recv;
 * then one MPI_Barrier, and ROUNDS times rank 0 sends to rank 2, which posted MPI_Irecv and waits
 * in MPI_Wait; then ROUNDS times rank 0 and rank 3 exchange a value with MPI_Sendrecv (rank 3,
 * there since the barrier, also waits out rank 0's sends to rank 2). So the other ranks wait about
 * ROUNDS x LATE_MS in each of MPI_Barrier and MPI_Allreduce, rank 1 in MPI_Recv, rank 2 in MPI_Wait,
 * rank 3 twice that in MPI_Sendrecv, and rank 0 (the late one) nearly never. Last, ROUNDS times rank 0
 * and rank 1 exchange with MPI_Sendrecv_replace: rank 1, there since the second barrier, waits out
 * the two phases before too (three times ROUNDS x LATE_MS). The nonblocking, persistent and
 * intercommunicator phases add ROUNDS x LATE_MS to each other rank's MPI_Waitall and MPI_Bcast and
 * twice that to its MPI_Wait (rank 2's three times, with its receive's phase). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 4
#define LATE_MS 50

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 4) {
    printf("late_partners: needs 4 ranks or more\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int i = 0; i < ROUNDS; ++i) {
    if (rank == 0) usleep(LATE_MS * 1000);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int one = 1, sum = 0;
  for (int i = 0; i < ROUNDS; ++i) {
    if (rank == 0) usleep(LATE_MS * 1000);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  for (int i = 0; i < ROUNDS; ++i) {
    int total = 0;
    MPI_Request r;
    if (rank == 0) usleep(LATE_MS * 1000);
    MPI_Iallreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (total != size) printf("late_partners: FAILED: iallreduce sum %d in round %d\n", total, i);
  }
  for (int i = 0; i < ROUNDS; ++i) {
    int v = rank == 0 ? 100 + i : -1;
    MPI_Request r;
    if (rank == 0) usleep(LATE_MS * 1000);
    MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    MPI_Waitall(1, &r, MPI_STATUSES_IGNORE);
    if (v != 100 + i) printf("late_partners: FAILED: rank %d got %d from MPI_Ibcast in round %d\n", rank, v, i);
  }
  int persistent_sum = 0;
  MPI_Request p;
  MPI_Allreduce_init(&one, &persistent_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p);
  for (int i = 0; i < ROUNDS; ++i) {
    persistent_sum = 0;
    if (rank == 0) usleep(LATE_MS * 1000);
    MPI_Start(&p);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    if (persistent_sum != size) printf("late_partners: FAILED: persistent sum %d in round %d\n", persistent_sum, i);
  }
  MPI_Request_free(&p);
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < 2 ? 2 : 0, 7, &inter);
  for (int i = 0; i < ROUNDS; ++i) {
    int v = rank == 0 ? 200 + i : -1;
    int root = rank == 0 ? MPI_ROOT : rank == 1 ? MPI_PROC_NULL : 0;
    if (rank == 0) usleep(LATE_MS * 1000);
    MPI_Bcast(&v, 1, MPI_INT, root, inter);
    if (rank >= 2 && v != 200 + i)
      printf("late_partners: FAILED: rank %d got %d from the intercommunicator's MPI_Bcast\n", rank, v);
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  int value = 0;
  for (int i = 0; i < ROUNDS; ++i) {
    if (rank == 0) {
      usleep(LATE_MS * 1000);
      for (int to = 1; to <= 3; ++to) MPI_Send(&i, 1, MPI_INT, to, i, MPI_COMM_WORLD);
    } else if (rank <= 3) {
      int got[2] = {-1, -1}, index = -1, done = 0, which[2];
      MPI_Request r[2];
      MPI_Irecv(&got[0], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &r[0]);
      if (rank == 2) MPI_Send(&i, 1, MPI_INT, 1, 100 + i, MPI_COMM_WORLD);  // rank 1's other receive
      if (rank == 1) {
        MPI_Irecv(&got[1], 1, MPI_INT, 2, 100 + i, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      } else if (rank == 2) {
        MPI_Waitany(1, r, &index, MPI_STATUS_IGNORE);
      } else {
        MPI_Waitsome(1, r, &done, which, MPI_STATUSES_IGNORE);
      }
      if (got[0] != i || (rank == 1 && got[1] != i))
        printf("late_partners: FAILED: rank %d got %d %d in round %d\n", rank, got[0], got[1], i);
    }
  }
  for (int i = 0; i < ROUNDS; ++i) {
    if (rank == 0) {
      usleep(LATE_MS * 1000);
      MPI_Send(&i, 1, MPI_INT, 1, i, MPI_COMM_WORLD);
    } else if (rank == 1) {
      MPI_Recv(&value, 1, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < ROUNDS; ++i) {
    if (rank == 0) {
      usleep(LATE_MS * 1000);
      MPI_Send(&i, 1, MPI_INT, 2, i, MPI_COMM_WORLD);
    } else if (rank == 2) {
      MPI_Request r;
      MPI_Irecv(&value, 1, MPI_INT, 0, i, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
  }
  for (int i = 0; i < ROUNDS; ++i) {
    if (rank == 0 || rank == 3) {
      int partner = 3 - rank, back = -1;
      if (rank == 0) usleep(LATE_MS * 1000);
      MPI_Sendrecv(&i, 1, MPI_INT, partner, i, &back, 1, MPI_INT, partner, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (back != i) printf("late_partners: FAILED: rank %d got %d from MPI_Sendrecv, expected %d\n", rank, back, i);
    }
  }
  for (int i = 0; i < ROUNDS; ++i) {
    if (rank == 0 || rank == 1) {
      int v = 10 * rank + i;
      if (rank == 0) usleep(LATE_MS * 1000);
      MPI_Sendrecv_replace(&v, 1, MPI_INT, 1 - rank, i, 1 - rank, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (v != 10 * (1 - rank) + i)
        printf("late_partners: FAILED: rank %d got %d from MPI_Sendrecv_replace, expected %d\n", rank, v,
               10 * (1 - rank) + i);
    }
  }
  if (sum != size) printf("late_partners: FAILED: allreduce sum %d\n", sum);
  MPI_Finalize();
  if (rank == 0) printf("late_partners: done\n");
  return 0;
}
