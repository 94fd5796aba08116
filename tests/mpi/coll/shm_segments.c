/*
 * How many shared-memory collective segments (coll/shm) a process maps:
 * at most FERRY_COLL_SHM_SEGMENTS (this test runs with 8) however many
 * communicators use collectives, those beyond the cap still giving right
 * results (by message); a freed communicator's segment is unmapped
 * (MPI_Comm_free) and its room used by the next communicator. The segments
 * are counted in /proc/self/maps (names /dev/shm/ferry-coll-*), so the
 * test is Ferry's only and Linux only.
 */
#define TEST_NAME "shm_segments"
#include "../mpitest.h"

#define CAP 8
#define COMMS 20

#include "mapped_segments.h"

static void use(MPI_Comm c, int k) {
  int rank, size, in, sum = -1;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  in = rank + k;
  MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, c);
  CHECK(sum == size * k + size * (size - 1) / 2, "communicator %d: allreduce gave %d", k, sum);
  int v[8];
  for (int i = 0; i < 8; i++) v[i] = rank == 0 ? k * 10 + i : -1;
  MPI_Bcast(v, 8, MPI_INT, 0, c);
  for (int i = 0; i < 8; i++) CHECK(v[i] == k * 10 + i, "communicator %d: bcast [%d] = %d", k, i, v[i]);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!mt_is_ferry() || size < 2) {
    mt_pass();
    MPI_Finalize();
    return 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const int base = mapped_segments(); /* MPI_COMM_WORLD's, if it has one */
  CHECK(base <= 1, "%d segments mapped before any communicator was made", base);

  MPI_Comm comms[COMMS];
  for (int k = 0; k < COMMS; k++) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
    use(comms[k], k);
  }
  int held = mapped_segments();
  CHECK(held == CAP, "%d communicators in use: %d segments mapped, expected the cap, %d", COMMS + 1, held, CAP);
  for (int k = 0; k < COMMS; k++) use(comms[k], k + 100); /* both kinds still right */

  for (int k = 0; k < COMMS; k++) MPI_Comm_free(&comms[k]);
  held = mapped_segments();
  CHECK(held == base, "all freed: %d segments still mapped, expected %d", held, base);

  /* Room again for new communicators. */
  for (int k = 0; k < 3; k++) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
    use(comms[k], k);
  }
  held = mapped_segments();
  CHECK(held == base + 3, "3 new communicators: %d segments mapped, expected %d", held, base + 3);
  for (int k = 0; k < 3; k++) MPI_Comm_free(&comms[k]);
  mt_pass();
  MPI_Finalize();
  return 0;
}
