/*
 * Ranks of one communicator that answer FERRY_COLL_SHM differently (ranks
 * from different jobs on a host, whose auto rule counts other ranks per
 * core, or a setting given to some): the segment's creation asks each rank
 * and makes none unless all say yes, so every rank keeps the messages.
 * Here the odd ranks set FERRY_COLL_SHM=off before MPI_Init, the even ones
 * keep the test's on. Before, the ranks that said yes waited at the
 * creation for ranks that never came (the test timed out).
 */
#define TEST_NAME "shm_on_disagree"
#include "../mpitest.h"

int main(int argc, char **argv) {
  /* The launcher's rank, before MPI_Init reads the settings. */
  const char *launched = getenv("PMIX_RANK");
  if (launched == NULL) launched = getenv("OMPI_COMM_WORLD_RANK");
  if (launched != NULL && atoi(launched) % 2 == 1) setenv("FERRY_COLL_SHM", "off", 1);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static int in[1024], out[1024], all[8 * 1024];
  for (int it = 0; it < 12; it++) {
    const int n = 1 + it * 80;
    for (int i = 0; i < n; i++) in[i] = rank * 100 + i + it;
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
      CHECK(out[i] == 100 * size * (size - 1) / 2 + size * (i + it), "allreduce %d of %d ints: element %d is %d", it, n,
            i, out[i]);
    if (rank == 0)
      for (int i = 0; i < n; i++) out[i] = it * 7 + i;
    CHECK_MPI(MPI_Bcast(out, n, MPI_INT, 0, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) CHECK(out[i] == it * 7 + i, "bcast %d of %d ints: element %d is %d", it, n, i, out[i]);
    CHECK_MPI(MPI_Gather(in, n, MPI_INT, all, n, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0)
      for (int r = 0; r < size && size <= 8; r++)
        for (int i = 0; i < n; i++)
          CHECK(all[r * n + i] == r * 100 + i + it, "gather %d: rank %d's element %d is %d", it, r, i, all[r * n + i]);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
