/*
 * A program started without mpirun (MPI-3.1 §10.5.2, "singleton
 * MPI_INIT") runs as a one-rank job: MPI_COMM_WORLD has size 1, the rank
 * can message itself on MPI_COMM_WORLD and MPI_COMM_SELF, MPI_Barrier
 * returns, and MPI_Finalize ends cleanly. The same program is also run
 * through mpirun with one rank, where every check must hold as well.
 */
#define TEST_NAME "singleton"
#include "mpitest.h"

int main(int argc, char **argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(rank == 0 && size == 1, "MPI_COMM_WORLD: rank %d of %d, expected rank 0 of 1", rank, size);
  CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
        "MPI_Init_thread provided %d", provided);

  int *value = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag);
  CHECK(!flag || *value >= 1, "MPI_UNIVERSE_SIZE is %d", flag ? *value : -1);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
  CHECK(flag && *value >= 32767, "MPI_TAG_UB missing or below 32767");

  /* Small and large messages to itself on both communicators. */
  const MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};
  const size_t n = 1 << 20;
  unsigned char *sbuf = mt_malloc(n), *rbuf = mt_malloc(n);
  for (int c = 0; c < 2; c++)
    for (size_t bytes = 1; bytes <= n; bytes *= 64) {
      MPI_Request req;
      MPI_Status st;
      mt_fill(sbuf, bytes, mt_seed((uint32_t)c, (uint32_t)bytes, 5));
      MPI_Isend(sbuf, (int)bytes, MPI_BYTE, 0, 3, comms[c], &req);
      MPI_Recv(rbuf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[c], &st);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      CHECK_STATUS(st, 0, 3, MPI_BYTE, (int)bytes, c ? "self message on MPI_COMM_SELF"
                                                     : "self message on MPI_COMM_WORLD");
      CHECK_PATTERN(rbuf, bytes, mt_seed((uint32_t)c, (uint32_t)bytes, 5),
                    "self message of %zu B", bytes);
    }
  free(sbuf);
  free(rbuf);

  mt_pass();
  MPI_Finalize();
  return 0;
}
