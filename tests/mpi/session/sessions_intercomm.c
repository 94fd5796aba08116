/*
 * MPI_Intercomm_create_from_groups (MPI-4.0 §7.6.2): the even and the odd
 * ranks of mpi://WORLD, as two groups, build an intercommunicator with no
 * communicator to start from, and exchange over it; overlapping groups are
 * MPI_ERR_GROUP.
 */
#define TEST_NAME "sessions_intercomm"
#include "../mpitest.h"

int main(void) {
  MPI_Session s;
  MPI_Group world, evens, odds;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
  int size, rank;
  MPI_Group_size(world, &size);
  MPI_Group_rank(world, &rank);
  int range_even[1][3] = {{0, size - 1, 2}}, range_odd[1][3] = {{1, size - 1, 2}};
  MPI_Group_range_incl(world, 1, range_even, &evens);
  MPI_Group_range_incl(world, 1, range_odd, &odds);
  int even = rank % 2 == 0;
  MPI_Group mine = even ? evens : odds, other = even ? odds : evens;
  int my_size, other_size;
  MPI_Group_size(mine, &my_size);
  MPI_Group_size(other, &other_size);

  MPI_Comm inter;
  CHECK_MPI(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "org.ferry.test.inter", MPI_INFO_NULL,
                                             MPI_ERRORS_RETURN, &inter));
  int is_inter = 0, remote = 0, local_rank;
  MPI_Comm_test_inter(inter, &is_inter);
  MPI_Comm_remote_size(inter, &remote);
  MPI_Comm_rank(inter, &local_rank);
  CHECK(is_inter, "not an intercommunicator");
  CHECK(remote == other_size, "remote size %d, expected %d", remote, other_size);
  CHECK(local_rank == rank / 2, "local rank %d, expected %d", local_rank, rank / 2);
  /* Local rank r of each side sends its world rank to remote rank r (where it exists). */
  int got = -1;
  MPI_Request reqs[2];
  int n = 0;
  if (local_rank < remote) {
    CHECK_MPI(MPI_Isend(&rank, 1, MPI_INT, local_rank, 3, inter, &reqs[n++]));
    CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, local_rank, 3, inter, &reqs[n++]));
  }
  CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
  if (n > 0) CHECK(got == (even ? rank + 1 : rank - 1), "got world rank %d from the other side", got);
  /* An allreduce across: each side gets the sum of the other side's ranks. */
  int sum = 0, expected = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter));
  for (int r = even ? 1 : 0; r < size; r += 2) expected += r;
  CHECK(sum == expected, "allreduce across gave %d, expected %d", sum, expected);
  MPI_Comm_free(&inter);

  /* Overlapping groups. */
  MPI_Comm bad = MPI_COMM_NULL;
  int rc = MPI_Intercomm_create_from_groups(mine, 0, world, 0, "org.ferry.test.bad", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &bad);
  int cls = 0;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_GROUP && bad == MPI_COMM_NULL, "overlapping groups: class %d", cls);

  MPI_Group_free(&evens);
  MPI_Group_free(&odds);
  MPI_Group_free(&world);
  CHECK_MPI(MPI_Session_finalize(&s));
  if (rank == 0) printf("%s: OK\n", TEST_NAME);
  return 0;
}
