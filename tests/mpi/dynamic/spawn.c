/*
 * MPI_Comm_spawn and MPI_Comm_get_parent (MPI-3.1 §10.3): the parents spawn
 * this program as children, both sides exchange messages over the
 * intercommunicator, run collectives across it, merge it, and the children
 * see their own MPI_COMM_WORLD. A spawn of a missing program fails with
 * MPI_ERR_SPAWN at every parent, with a message, and no hang.
 *
 *   spawn [N]   the parents spawn N children (default 2)
 */
#define TEST_NAME "spawn"
#include "spawned.h"

static void child(MPI_Comm parent) {
  int rank, size, remote;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_remote_size(parent, &remote);
  int flag = 0;
  CHECK_MPI(MPI_Comm_test_inter(parent, &flag));
  CHECK(flag, "the parent communicator is not an intercommunicator");

  /* The parents' root sends every child its rank times 10. */
  int value = -1;
  CHECK_MPI(MPI_Recv(&value, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE));
  CHECK(value == rank * 10, "child %d got %d from the parents' root, expected %d", rank, value, rank * 10);
  /* ... and every child answers every parent. */
  for (int p = 0; p < remote; ++p) {
    int answer = 1000 + rank;
    CHECK_MPI(MPI_Send(&answer, 1, MPI_INT, p, 8, parent));
  }
  /* Collectives across the intercommunicator: the parents' root broadcasts. */
  int word = 0;
  CHECK_MPI(MPI_Bcast(&word, 1, MPI_INT, 0, parent));
  CHECK(word == 4242, "broadcast from the parents gave %d", word);
  /* The children's sum reaches the parents. */
  int sum = 0, mine = rank + 1;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, parent));
  int parents = remote;
  CHECK(sum == parents * (parents + 1) / 2, "allreduce over the parents gave %d", sum);
  /* Merged, children last. */
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(parent, 1, &merged));
  int mrank, msize;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == size + remote && mrank == remote + rank, "merged: rank %d of %d", mrank, msize);
  int total = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged));
  CHECK(total == msize, "allreduce over the merged communicator gave %d", total);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_disconnect(&parent));
  CHECK(parent == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");
  MPI_Comm again;
  CHECK_MPI(MPI_Comm_get_parent(&again));
  CHECK(again == MPI_COMM_NULL, "get_parent after disconnect is not MPI_COMM_NULL");
}

int main(int argc, char **argv) {
  spawned_init(&argc, &argv, child);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 2;

  MPI_Comm children;
  int codes[16];
  for (int i = 0; i < 16; ++i) codes[i] = -1;
  CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children, codes));
  if (rank == 0)
    for (int i = 0; i < n; ++i) CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, codes[i]);
  int remote = 0;
  MPI_Comm_remote_size(children, &remote);
  CHECK(remote == n, "the children's group has %d processes, expected %d", remote, n);
  if (rank == 0)
    for (int c = 0; c < n; ++c) {
      int value = c * 10;
      CHECK_MPI(MPI_Send(&value, 1, MPI_INT, c, 7, children));
    }
  for (int c = 0; c < n; ++c) {
    int answer = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&answer, 1, MPI_INT, MPI_ANY_SOURCE, 8, children, &st));
    CHECK(answer == 1000 + st.MPI_SOURCE, "child %d answered %d", st.MPI_SOURCE, answer);
  }
  int word = 4242;
  CHECK_MPI(MPI_Bcast(&word, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, children));
  int sum = 0, mine = rank + 1;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, children));
  CHECK(sum == n * (n + 1) / 2, "allreduce over the children gave %d", sum);
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(children, 0, &merged));
  int mrank, msize;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == size + n && mrank == rank, "merged: rank %d of %d", mrank, msize);
  int total = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged));
  CHECK(total == msize, "allreduce over the merged communicator gave %d", total);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_disconnect(&children));

  /* A program that does not exist: MPI_ERR_SPAWN everywhere, with a reason. */
  spawned_check_missing_program(1, 0, codes);
  mt_pass();
  MPI_Finalize();
  return 0;
}
