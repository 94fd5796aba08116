/*
 * A blocking MPI_Recv from one peer reached over shared memory polls that
 * peer's ring alone between full passes of the progress engine (issue 29,
 * p2p/pt2pt.cc FromOnePeer). The full passes must still come, or a rank that
 * waits can starve what its peer waits for:
 *
 *   A  rendezvous to a third rank: rank 0 starts a large MPI_Isend to rank 2
 *      (larger than the ring: its pieces move only while rank 0 progresses
 *      its queue to rank 2), then blocks in MPI_Recv from rank 1. Rank 2
 *      receives the large message and only then sends to rank 1, which only
 *      then sends to rank 0.
 *   B  a nonblocking collective: rank 0 starts an MPI_Iallreduce of 1 MiB,
 *      then blocks in MPI_Recv from rank 1; rank 1 completes the allreduce
 *      before it sends. (An MPI_Ibarrier did not need rank 0's progress once
 *      started: with it this phase passed even with no full pass at all.)
 *
 * Run with FERRY_WAIT=spin (CMakeLists.txt): the wait never sleeps, so only
 * the regular full passes can move rank 0's other work. 3 ranks or more;
 * the others take part in phase B only.
 */
#define TEST_NAME "p2p_recv_peer_poll"
#include "mpitest.h"

#define LARGE_BYTES (1024 * 1024) /* four times shared memory's default ring */

static int rank, size;

static void phase_rendezvous_elsewhere(void) {
  int token = 0;
  if (rank == 0) {
    unsigned char *big = mt_malloc(LARGE_BYTES);
    for (size_t i = 0; i < LARGE_BYTES; i++) big[i] = (unsigned char)(i * 7 + 1);
    MPI_Request send;
    CHECK_MPI(MPI_Isend(big, LARGE_BYTES, MPI_BYTE, 2, 10, MPI_COMM_WORLD, &send));
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(token == 42, "phase A: rank 0 received %d from rank 1, expected 42", token);
    CHECK_MPI(MPI_Wait(&send, MPI_STATUS_IGNORE));
    free(big);
  } else if (rank == 1) {
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 2, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    token = 42;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 11, MPI_COMM_WORLD));
  } else if (rank == 2) {
    unsigned char *big = mt_malloc(LARGE_BYTES);
    CHECK_MPI(MPI_Recv(big, LARGE_BYTES, MPI_BYTE, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < LARGE_BYTES; i++)
      CHECK(big[i] == (unsigned char)(i * 7 + 1), "phase A: byte %zu of the large message is wrong", i);
    free(big);
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 1, 12, MPI_COMM_WORLD));
  }
}

#define REDUCE_INTS (256 * 1024)

static void phase_nonblocking_collective(void) {
  int token = 0;
  int *in = mt_malloc(REDUCE_INTS * sizeof(int)), *out = mt_malloc(REDUCE_INTS * sizeof(int));
  for (int i = 0; i < REDUCE_INTS; i++) in[i] = rank + i % 1000;
  MPI_Request reduce;
  CHECK_MPI(MPI_Iallreduce(in, out, REDUCE_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reduce));
  if (rank == 0) {
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 1, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(token == 43, "phase B: rank 0 received %d from rank 1, expected 43", token);
  }
  CHECK_MPI(MPI_Wait(&reduce, MPI_STATUS_IGNORE));
  for (int i = 0; i < REDUCE_INTS; i++)
    CHECK(out[i] == size * (size - 1) / 2 + size * (i % 1000), "phase B: element %d of the sum is %d", i, out[i]);
  free(in);
  free(out);
  if (rank == 1) {
    token = 43;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 13, MPI_COMM_WORLD));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 3, "needs 3 ranks or more, has %d", size);
  phase_rendezvous_elsewhere();
  MPI_Barrier(MPI_COMM_WORLD);
  phase_nonblocking_collective();
  mt_pass();
  MPI_Finalize();
  return 0;
}
