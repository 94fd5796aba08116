/*
 * A message a process sends to itself needs nobody else, so one progress
 * pass finishes it: the first MPI_Test (or MPI_Request_get_status) after the
 * receive is matched finds both the receive and the send complete, at every
 * size and in every mode (a rendezvous's request, ready and data all stay in
 * this process). MPICH 4.0.2 does so at one rank (its larger messages to
 * itself on a bigger communicator take a few passes: there the test only
 * waits, and checks the data). Programs rely on it: mpi4py's
 * test_util_pkl5 testMProbe frees an Issend to self (MPI_Request_free)
 * after one MPI_Test of the matched MPI_Imrecv and then frees the send
 * buffer; when the data still waited for a later pass, it was read from
 * freed memory and the heap broke.
 *
 * On MPI_COMM_SELF and on a duplicate of MPI_COMM_WORLD: MPI_Issend or
 * MPI_Isend, MPI_Mprobe + MPI_Imrecv or MPI_Irecv posted first, then one
 * MPI_Test of the receive; and MPI_Irecv + MPI_Issend, one MPI_Test of the
 * send.
 */
#define TEST_NAME "p2p_self_one_pass"
#include "mpitest.h"

#define BIG (1 << 20)

enum order { MPROBE_IMRECV, IRECV_FIRST };

static void one_pass(MPI_Comm comm, const char *comm_name, int bytes, int synchronous, enum order order, int tag) {
  int me, size;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int strict = mt_is_ferry() || size == 1;
  char what[160];
  snprintf(what, sizeof what, "%s of %d bytes to self on %s, %s", synchronous ? "MPI_Issend" : "MPI_Isend", bytes,
           comm_name, order == MPROBE_IMRECV ? "MPI_Mprobe + MPI_Imrecv" : "MPI_Irecv posted first");
  uint32_t seed = mt_seed((uint32_t)me, (uint32_t)tag, (uint32_t)bytes);
  char *buf = mt_malloc((size_t)bytes + 1), *got = mt_malloc((size_t)bytes + 1);
  mt_fill(buf, (size_t)bytes, seed);
  MPI_Request send, recv;
  int flag = 0;
  if (order == IRECV_FIRST) CHECK_MPI(MPI_Irecv(got, bytes, MPI_BYTE, me, tag, comm, &recv));
  if (synchronous) CHECK_MPI(MPI_Issend(buf, bytes, MPI_BYTE, me, tag, comm, &send));
  else CHECK_MPI(MPI_Isend(buf, bytes, MPI_BYTE, me, tag, comm, &send));
  if (order == MPROBE_IMRECV) {
    MPI_Message message;
    CHECK_MPI(MPI_Mprobe(me, tag, comm, &message, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Imrecv(got, bytes, MPI_BYTE, &message, &recv));
  }
  MPI_Status st;
  CHECK_MPI(MPI_Test(&recv, &flag, &st));
  if (!flag && !strict) mt_wait_test(&recv, &st, what);
  else CHECK(flag, "%s: the first MPI_Test of the matched receive says not complete", what);
  CHECK_STATUS(st, me, tag, MPI_BYTE, bytes, what);
  CHECK_PATTERN(got, (size_t)bytes, seed, "%s", what);
  CHECK_MPI(MPI_Request_get_status(send, &flag, MPI_STATUS_IGNORE));
  if (!flag && !strict) mt_wait_test(&send, MPI_STATUS_IGNORE, what);
  else CHECK(flag, "%s: its receive is complete, the send says not complete", what);
  /* Complete: its buffer may be reused at once (mpi4py frees it). */
  if (send != MPI_REQUEST_NULL) CHECK_MPI(MPI_Request_free(&send));
  memset(buf, 0xee, (size_t)bytes);
  free(buf), free(got);
}

/* The send tested first, the receive already posted. */
static void one_pass_send_tested(MPI_Comm comm, const char *comm_name, int bytes, int tag) {
  int me, size;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int strict = mt_is_ferry() || size == 1;
  char what[160];
  snprintf(what, sizeof what, "MPI_Irecv + MPI_Issend of %d bytes to self on %s, the send tested", bytes, comm_name);
  uint32_t seed = mt_seed((uint32_t)me, (uint32_t)tag, 7);
  char *buf = mt_malloc((size_t)bytes + 1), *got = mt_malloc((size_t)bytes + 1);
  mt_fill(buf, (size_t)bytes, seed);
  MPI_Request send, recv;
  int flag = 0;
  CHECK_MPI(MPI_Irecv(got, bytes, MPI_BYTE, me, tag, comm, &recv));
  CHECK_MPI(MPI_Issend(buf, bytes, MPI_BYTE, me, tag, comm, &send));
  CHECK_MPI(MPI_Test(&send, &flag, MPI_STATUS_IGNORE));
  if (!flag && !strict) mt_wait_test(&send, MPI_STATUS_IGNORE, what);
  else CHECK(flag, "%s: the first MPI_Test of the send says not complete", what);
  CHECK_MPI(MPI_Request_get_status(recv, &flag, MPI_STATUS_IGNORE));
  CHECK(flag || !strict, "%s: the send is complete, its receive says not complete", what);
  CHECK_MPI(MPI_Wait(&recv, MPI_STATUS_IGNORE));
  CHECK_PATTERN(got, (size_t)bytes, seed, "%s", what);
  free(buf), free(got);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm world;
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int sizes[] = {0, 8, BIG};
  int tag = 1;
  for (int s = 0; s < 3; ++s) {
    for (int synchronous = 1; synchronous >= 0; --synchronous)
      for (int order = MPROBE_IMRECV; order <= IRECV_FIRST; ++order) {
        one_pass(MPI_COMM_SELF, "MPI_COMM_SELF", sizes[s], synchronous, (enum order)order, tag++);
        one_pass(world, "a dup of MPI_COMM_WORLD", sizes[s], synchronous, (enum order)order, tag++);
      }
    one_pass_send_tested(MPI_COMM_SELF, "MPI_COMM_SELF", sizes[s], tag++);
    one_pass_send_tested(world, "a dup of MPI_COMM_WORLD", sizes[s], tag++);
  }
  MPI_Comm_free(&world);
  mt_pass();
  MPI_Finalize();
  return 0;
}
