/*
 * MPI_Comm_idup_with_info (MPI-4.0 §7.4.2) gives the new communicator the
 * info's hints, not the parent's; the assertions mpi_assert_no_any_source
 * and mpi_assert_no_any_tag (§7.4.4) make a wildcard receive an error
 * (MPI_ERR_RANK, MPI_ERR_TAG) that names the assertion; MPI_ERRORS_ABORT is
 * a handler a communicator can take.
 */
#define TEST_NAME "comm_mpi4_info"
#include "../mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* The parent carries one hint; the idup's info another. */
  MPI_Comm parent, dup;
  MPI_Info hints, used;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "mpi_assert_exact_length", "true");
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &parent));
  MPI_Info_free(&hints);
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "mpi_assert_no_any_source", "true");
  MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
  MPI_Request req;
  CHECK_MPI(MPI_Comm_idup_with_info(parent, hints, &dup, &req));
  MPI_Info_free(&hints);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_get_info(dup, &used));
  char value[32];
  int flag = 0;
  MPI_Info_get(used, "mpi_assert_no_any_source", sizeof value - 1, value, &flag);
  CHECK(flag && strcmp(value, "true") == 0, "idup_with_info lost mpi_assert_no_any_source");
  MPI_Info_get(used, "mpi_assert_exact_length", sizeof value - 1, value, &flag);
  CHECK(!flag, "idup_with_info kept the parent's mpi_assert_exact_length");
  MPI_Info_free(&used);

  /* The duplicate works: a ring with named sources and tags. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, dup, MPI_STATUS_IGNORE));
  CHECK(got == left, "ring on the duplicate: got %d from %d", got, left);

  /* Wildcards break the assertions. */
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int buf;
  mt_expect_error(MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 5, dup, MPI_STATUS_IGNORE), MPI_ERR_RANK,
               "mpi_assert_no_any_source", "MPI_Recv(MPI_ANY_SOURCE)");
  mt_expect_error(MPI_Irecv(&buf, 1, MPI_INT, left, MPI_ANY_TAG, dup, &req), MPI_ERR_TAG, "mpi_assert_no_any_tag",
               "MPI_Irecv(MPI_ANY_TAG)");
  int probe_flag;
  mt_expect_error(MPI_Iprobe(MPI_ANY_SOURCE, 5, dup, &probe_flag, MPI_STATUS_IGNORE), MPI_ERR_RANK,
               "mpi_assert_no_any_source", "MPI_Iprobe(MPI_ANY_SOURCE)");
  /* Withdrawing the assertion with MPI_Comm_set_info allows them again. */
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "mpi_assert_no_any_source", "false");
  CHECK_MPI(MPI_Comm_set_info(dup, hints));
  MPI_Info_free(&hints);
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 6, &got, 1, MPI_INT, MPI_ANY_SOURCE, 6, dup, MPI_STATUS_IGNORE));
  CHECK(got == left, "MPI_ANY_SOURCE after withdrawing the assertion: got %d", got);

  /* MPI_ERRORS_ABORT can be set and read back. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT));
  CHECK_MPI(MPI_Comm_get_errhandler(dup, &eh));
  CHECK(eh == MPI_ERRORS_ABORT, "MPI_Comm_get_errhandler gave 0x%x", (unsigned)eh);

  MPI_Comm_free(&dup);
  MPI_Comm_free(&parent);
  mt_pass();
  MPI_Finalize();
  return 0;
}
