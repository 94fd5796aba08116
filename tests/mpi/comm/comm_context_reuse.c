/*
 * Context ids are reused (MPI-3.1 §6.4.3): creating and freeing
 * communicators many more times than there are context ids (Ferry has 2048
 * per process) never runs out, with every kind of construction; many
 * communicators can be alive at once and freed in any order; and a
 * communicator made on a reused id does not see the traffic of the one
 * that had it before.
 */
#define TEST_NAME "comm_context_reuse"
#include "mpitest.h"

#define CYCLES 2500
#define HELD 150

static int rank, size;

static void check_works(MPI_Comm c, const char *what) {
  int n, sum = 0, one = 1;
  MPI_Comm_size(c, &n);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
  CHECK(sum == n, "%s: allreduce gave %d on %d ranks", what, sum, n);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);

  /* More cycles than context ids, every construction in turn. */
  for (int i = 0; i < CYCLES; i++) {
    MPI_Comm c = MPI_COMM_NULL;
    switch (i % 5) {
      case 0: MPI_Comm_dup(MPI_COMM_WORLD, &c); break;
      case 1: MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c); break;
      case 2: MPI_Comm_create(MPI_COMM_WORLD, world_group, &c); break;
      case 3: MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 9, &c); break;
      default: {
        MPI_Request r;
        MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
    }
    CHECK(c != MPI_COMM_NULL, "cycle %d: no communicator", i);
    if (i % 250 == 0) check_works(c, "a communicator on a reused context id");
    MPI_Comm_free(&c);
  }

  /* Many alive at once, freed in a scrambled order, then made again. */
  MPI_Comm held[HELD];
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < HELD; i++) MPI_Comm_dup(i % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, &held[i]);
    for (int i = 0; i < HELD; i++) {
      int result;
      MPI_Comm_compare(held[i], held[(i + 2) % HELD], &result);
      CHECK(result == MPI_CONGRUENT, "round %d: communicators %d and %d compare as %d", round, i, (i + 2) % HELD,
            result);
    }
    check_works(held[HELD - 1], "the last of many live communicators");
    for (int i = 0; i < HELD; i++) {
      int j = (i * 7 + round) % HELD; /* 7 is prime to HELD: a permutation */
      MPI_Comm_free(&held[j]);
      CHECK(held[j] == MPI_COMM_NULL, "freed handle not MPI_COMM_NULL");
    }
  }

  /* A communicator made right after one is freed (likely on the same id)
   * gets only its own traffic. */
  if (size >= 2) {
    for (int i = 0; i < 20; i++) {
      MPI_Comm old, fresh;
      MPI_Comm_dup(MPI_COMM_WORLD, &old);
      int v = -1, w = -1, x = 1000 + i, y = 2000 + i;
      if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 0, old);
      if (rank == 1) MPI_Recv(&v, 1, MPI_INT, 0, 0, old, MPI_STATUS_IGNORE);
      MPI_Comm_free(&old);
      MPI_Comm_dup(MPI_COMM_WORLD, &fresh); /* likely the id `old` had */
      if (rank == 0) MPI_Send(&y, 1, MPI_INT, 1, 0, fresh);
      if (rank == 1) {
        MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, fresh, MPI_STATUS_IGNORE);
        CHECK(v == x && w == y, "iteration %d: old got %d (expected %d), fresh got %d (expected %d)", i, v, x, w, y);
      }
      MPI_Comm_free(&fresh);
    }
  }
  MPI_Group_free(&world_group);
  mt_pass();
  MPI_Finalize();
  return 0;
}
