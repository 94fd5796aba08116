/*
 * MPI_UNIVERSE_SIZE of spawned processes (MPI-3.1 §10.5.1: "the total
 * number of processes that are expected"), and the end of parents and
 * children, round after round.
 *
 * Run under a universe the spawn overfills (mpirun -usize 2 -n 1, as a
 * 2-core host gives by default): the parents spawn 2 children anyway, which
 * mpirun places beyond the universe on its own host. The children must then
 * see a universe that holds every process now running, parents included,
 * so more than their own MPI_COMM_WORLD. MPICH's spawn tests decide from
 * exactly that (MTestSpawnPossible: universe > world size) whether to take
 * part; children told the stale count skip their part and finalize, and
 * their parents wait for them forever (spawn/spawn1, 9 runs in 10) or send
 * to a child that has already exited (the tenth: "cannot connect to rank
 * 2 ... Connection refused"). Here a child that sees no room fails at once,
 * naming the figures.
 *
 * Each round is spawn/spawn1's exchange: the parents' root sends every
 * child its rank, every child answers with a synchronous send, then both
 * sides disconnect and the children finalize and exit while the parents go
 * on to the next round.
 *
 *   spawn_universe [ROUNDS]   default 10
 */
#define TEST_NAME "spawn_universe"
#include "spawned.h"

enum { kChildren = 2 };

static int universe_size(void) {
  int *value = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag));
  CHECK(flag, "MPI_UNIVERSE_SIZE is not set");
  return *value;
}

static void child(MPI_Comm parent) {
  int rank, size, parents;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_remote_size(parent, &parents);
  int universe = universe_size();
  CHECK(universe >= size + parents,
        "MPI_UNIVERSE_SIZE is %d, but %d processes run (this job's %d, its parents' %d): a program that "
        "spawns only while the universe exceeds its MPI_COMM_WORLD would skip its part here",
        universe, size + parents, size, parents);
  int value = -1;
  CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, 0, 0, parent, MPI_STATUS_IGNORE));
  CHECK(value == rank, "child %d got %d from the parents' root", rank, value);
  int answer = 1000 + rank;
  CHECK_MPI(MPI_Ssend(&answer, 1, MPI_INT, 0, 1, parent));
  CHECK_MPI(MPI_Comm_disconnect(&parent));
}

int main(int argc, char **argv) {
  spawned_init(&argc, &argv, child);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  (void)universe_size();
  for (int round = 0; round < rounds; ++round) {
    MPI_Comm children;
    CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, kChildren, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children,
                             MPI_ERRCODES_IGNORE));
    if (rank == 0) {
      for (int c = 0; c < kChildren; ++c) CHECK_MPI(MPI_Send(&c, 1, MPI_INT, c, 0, children));
      for (int c = 0; c < kChildren; ++c) {
        int answer = -1;
        CHECK_MPI(MPI_Recv(&answer, 1, MPI_INT, c, 1, children, MPI_STATUS_IGNORE));
        CHECK(answer == 1000 + c, "round %d: child %d answered %d", round, c, answer);
      }
    }
    CHECK_MPI(MPI_Comm_disconnect(&children));
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
