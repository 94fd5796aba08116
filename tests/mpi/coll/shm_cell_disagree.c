/*
 * Ranks of one host that would size a shared-memory segment's cells
 * differently (FERRY_COLL_SHM_CELL set for some, or cgroups that give them
 * different core counts, coll/shm/segment.h cell_bytes_here) still lay it
 * out alike: the segment's maker, rank 0, tells the others its cell size
 * with its name. The test's environment says FERRY_COLL_SHM_CELL=16k, and
 * every rank but 0 sets 1k before MPI_Init. Bcasts, allreduces and
 * gathers of 512 B-8 KiB must deliver the right data: with cells laid out
 * by each rank's own size (a rank with 64 KiB cells, the others 16 KiB),
 * 6 of 8 bcasts of 8 KiB arrived wrong at 4 ranks on 2 cores, each call
 * returning MPI_SUCCESS.
 */
#define TEST_NAME "shm_cell_disagree"
#include "../mpitest.h"

int main(int argc, char **argv) {
  /* The launcher's rank, before MPI_Init reads the settings. */
  const char *launched = getenv("PMIX_RANK");
  if (launched == NULL) launched = getenv("OMPI_COMM_WORLD_RANK");
  if (launched != NULL && atoi(launched) != 0) setenv("FERRY_COLL_SHM_CELL", "1k", 1);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static unsigned char buf[8192], all[8 * 8192];
  static int in[2048], out[2048];
  for (size_t bytes = 512; bytes <= sizeof buf; bytes *= 2) {
    for (int it = 0; it < 6; it++) {
      const uint32_t seed = (uint32_t)(bytes + (size_t)it);
      if (rank == 0) mt_fill(buf, bytes, seed);
      else memset(buf, 0, bytes);
      CHECK_MPI(MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
      CHECK_PATTERN(buf, bytes, seed, "bcast of %zu bytes, call %d", bytes, it);

      const int n = (int)(bytes / sizeof(int));
      for (int i = 0; i < n; i++) in[i] = rank * 1000 + i + it;
      CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      for (int i = 0; i < n; i++) {
        const int want = 1000 * size * (size - 1) / 2 + size * (i + it);
        CHECK(out[i] == want, "allreduce of %d ints, call %d: element %d is %d, expected %d", n, it, i, out[i], want);
      }

      if (size <= 8) {
        mt_fill(buf, bytes, seed + (uint32_t)rank);
        CHECK_MPI(MPI_Gather(buf, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
        if (rank == 0)
          for (int r = 0; r < size; r++)
            CHECK_PATTERN(all + (size_t)r * bytes, bytes, seed + (uint32_t)r, "gather of %zu bytes, call %d, rank %d",
                          bytes, it, r);
      }
    }
  }
  mt_pass();
  MPI_Finalize();
  return 0;
}
