/* FERRY_PROFILE's companion barriers (src/profile/companions.h) where they could leak, hang or show:
 * more nonblocking collectives outstanding than the profile's table holds, requests completed by
 * MPI_Test, MPI_Testany and MPI_Waitany, persistent collectives whose root runs ahead of the
 * others (then freed), an intercommunicator's, and a root that calls MPI_Finalize while its last
 * companion still waits for ranks that have not started the collective. (MPI_Request_free and
 * MPI_Cancel of a nonblocking collective's request are erroneous, MPI-4.0 §6.12, and MPICH refuses
 * them.) Each result is checked; prints "companion_edges: OK" (tests/profile/CMakeLists.txt runs it
 * with FERRY_PROFILE set; it passes under MPICH too). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define OUTSTANDING 300 /* more than companions.h's kMaxCompanions */

static int failures = 0;
#define CHECK(cond, ...)                        \
  do {                                          \
    if (!(cond)) {                              \
      printf("companion_edges: FAILED: ");      \
      printf(__VA_ARGS__);                      \
      printf("\n");                             \
      ++failures;                               \
    }                                           \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* More outstanding than the table: the calls beyond it are not measured, nothing hangs. */
  static int in[OUTSTANDING], out[OUTSTANDING];
  static MPI_Request many[OUTSTANDING];
  for (int i = 0; i < OUTSTANDING; ++i) {
    in[i] = i + rank;
    MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &many[i]);
  }
  MPI_Waitall(OUTSTANDING, many, MPI_STATUSES_IGNORE); /* the first 256 measured, the rest not */
  for (int i = 0; i < OUTSTANDING; ++i)
    CHECK(out[i] == size * i + size * (size - 1) / 2, "iallreduce %d: %d", i, out[i]);

  /* Completed by MPI_Test (no wait counted), MPI_Testany and MPI_Waitany. */
  for (int i = 0; i < 5; ++i) {
    int sum = 0, flag = 0, index = -1;
    MPI_Request r;
    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(sum == size * (size - 1) / 2, "tested iallreduce: %d", sum);
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    for (flag = 0; !flag;) MPI_Testany(1, &r, &index, &flag, MPI_STATUS_IGNORE);
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    MPI_Waitany(1, &r, &index, MPI_STATUS_IGNORE);
    CHECK(index == 0, "waitany index %d", index);
  }

  /* A persistent bcast whose root runs ahead (its companions pend while the others lag), freed. */
  {
    int v = -1;
    MPI_Request p;
    MPI_Bcast_init(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &p);
    for (int i = 0; i < 20; ++i) {
      if (rank == 0) v = i;
      if (rank != 0 && i % 5 == 0) usleep(10000);
      MPI_Start(&p);
      MPI_Wait(&p, MPI_STATUS_IGNORE);
      CHECK(v == i, "persistent bcast round %d gave %d", i, v);
    }
    MPI_Request_free(&p);
  }

  /* On an intercommunicator (needs 2 ranks or more). */
  if (size >= 2) {
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 5, &inter);
    int remote_size, sum = -1;
    MPI_Comm_remote_size(inter, &remote_size);
    MPI_Request r;
    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int expected = 0;
    for (int q = 0; q < size; ++q) expected += q % 2 != rank % 2 ? q : 0;
    CHECK(sum == expected, "intercommunicator iallreduce: %d, expected %d", sum, expected);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }

  /* The root finalizes while its companion still waits for the others to start the bcast. */
  int last = rank == 0 ? 7 : -1;
  MPI_Request r;
  if (rank != 0) usleep(300000);
  MPI_Ibcast(&last, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(last == 7, "last ibcast gave %d", last);
  MPI_Finalize();
  if (failures == 0) printf("companion_edges: OK\n");
  return failures == 0 ? 0 : 1;
}
