/*
 * Intercommunicators (MPI-3.1 §6.6): MPI_Intercomm_create between the even
 * and the odd ranks of MPI_COMM_WORLD (leaders world 0 and 1, peer
 * communicator MPI_COMM_WORLD), the queries (test_inter, remote_size,
 * remote_group, size/rank of the local group), point-to-point across with
 * remote ranks, MPI_Comm_dup (its traffic stays apart from the original's),
 * MPI_Comm_compare, and MPI_Intercomm_merge both ways (the group that says
 * `high` goes last). Run with 2 or more ranks.
 */
#define TEST_NAME "intercomm"
#include "mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 or more ranks");
  const int odd = rank % 2;
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, odd, rank, &half));
  int half_rank, half_size;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  const int evens = (size + 1) / 2, odds = size / 2;
  const int remote_size = odd ? evens : odds;

  MPI_Comm inter;
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, odd ? 0 : 1, 42, &inter));
  int flag = 0, n = -1, r = -1;
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag, "Comm_test_inter says no");
  CHECK_MPI(MPI_Comm_test_inter(half, &flag));
  CHECK(!flag, "an intracommunicator is not an intercommunicator");
  CHECK_MPI(MPI_Comm_remote_size(inter, &n));
  CHECK(n == remote_size, "remote size %d, want %d", n, remote_size);
  CHECK_MPI(MPI_Comm_size(inter, &n));
  CHECK_MPI(MPI_Comm_rank(inter, &r));
  CHECK(n == half_size && r == half_rank, "local size/rank %d/%d, want %d/%d", n, r, half_size, half_rank);

  /* The remote group, as world ranks: the other parity, in order. */
  MPI_Group remote, world_group;
  CHECK_MPI(MPI_Comm_remote_group(inter, &remote));
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int *ranks = mt_malloc(sizeof(int) * (size_t)remote_size), *world = mt_malloc(sizeof(int) * (size_t)remote_size);
  for (int i = 0; i < remote_size; i++) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(remote, remote_size, ranks, world_group, world));
  for (int i = 0; i < remote_size; i++)
    CHECK(world[i] == 2 * i + (odd ? 0 : 1), "remote rank %d is world %d", i, world[i]);

  /* Point-to-point: local rank i sends to remote rank i % remote_size; each
   * rank then receives from every remote rank that targets it. */
  int out = 1000 * rank + 7, expected = 0;
  MPI_Request req;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, half_rank % remote_size, 5, inter, &req));
  for (int j = 0; j < remote_size; j++) expected += (j % half_size == half_rank);
  for (int k = 0; k < expected; k++) {
    int in = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter, &st));
    int sender_world = 2 * st.MPI_SOURCE + (odd ? 0 : 1);
    CHECK(st.MPI_SOURCE % half_size == half_rank, "message from remote rank %d was not for me", st.MPI_SOURCE);
    CHECK(in == 1000 * sender_world + 7, "got %d from remote rank %d (world %d)", in, st.MPI_SOURCE, sender_world);
  }
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));

  /* A duplicate: same groups, its own traffic. A message on the original
   * must not match a receive on the duplicate. */
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(inter, &copy));
  int result = -1;
  CHECK_MPI(MPI_Comm_compare(inter, copy, &result));
  CHECK(result == MPI_CONGRUENT, "compare(inter, dup) = %d, want MPI_CONGRUENT", result);
  CHECK_MPI(MPI_Comm_test_inter(copy, &flag));
  CHECK(flag, "a dup of an intercommunicator is one");
  if (half_rank == 0) {
    int a = 1, b = 2, x = -1, y = -1;
    MPI_Request rs[2];
    CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, 0, 9, inter, &rs[0]));
    CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, 0, 9, copy, &rs[1]));
    CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, 0, 9, copy, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE));
    CHECK(x == 1 && y == 2, "traffic crossed between an intercommunicator and its dup: %d %d", x, y);
    CHECK_MPI(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
  }

  /* Merge: the odd group says high, so evens come first: world order. */
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(inter, odd, &merged));
  CHECK_MPI(MPI_Comm_size(merged, &n));
  CHECK_MPI(MPI_Comm_rank(merged, &r));
  CHECK(n == size, "merged size %d", n);
  CHECK(r == (odd ? evens + half_rank : half_rank), "merged rank %d", r);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == size * (size - 1) / 2, "allreduce over the merged communicator: %d", sum);
  /* The other way round, merged from the duplicate: odds first. */
  MPI_Comm merged2;
  CHECK_MPI(MPI_Intercomm_merge(copy, !odd, &merged2));
  CHECK_MPI(MPI_Comm_rank(merged2, &r));
  CHECK(r == (odd ? half_rank : odds + half_rank), "merged (odds first) rank %d", r);
  CHECK_MPI(MPI_Barrier(merged2));

  /* A scan has no meaning on an intercommunicator (MPI-3.1 §5.11). */
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int x = 1, y = 0, cls = -1;
  int code = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter);
  MPI_Error_class(code, &cls);
  CHECK(cls == MPI_ERR_COMM, "MPI_Scan on an intercommunicator: class %d", cls);

  MPI_Group_free(&remote);
  MPI_Group_free(&world_group);
  MPI_Comm_free(&merged2);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  free(ranks), free(world);
  mt_pass();
  MPI_Finalize();
  return 0;
}
