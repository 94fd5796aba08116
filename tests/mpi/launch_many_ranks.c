/*
 * launch_many_ranks: a job of many ranks on one host (run at 64,
 * oversubscribed) starts without per-pair work, and a rank's file
 * descriptors do not grow with the job (issue 32).
 *
 * After MPI_Init and a barrier a rank has met only the few peers the
 * barrier needs: the shared-memory segments it maps (lines of
 * /proc/self/maps under /dev/shm) must stay far below one per peer. After
 * an alltoall, where every rank meets every other, its descriptors must
 * still be few: a segment keeps none, and only a bounded number of peers'
 * doorbells stay open. A ring exchange checks that first contact in both
 * directions delivers. The bounds are what a correct runtime needs at any
 * size plus room, well under the 2 per peer (126 at 64 ranks) that eager
 * mapping took, and the PMIx sockets of the ranks started before that a
 * rank inherited from mpirun (up to 63 at 64 ranks). The bounds are
 * Ferry's: other MPIs are held only to the results (MPICH's ch4 maps a
 * file per rank at start-up).
 */
#define TEST_NAME "launch_many_ranks"
#include "mpitest.h"

#include <dirent.h>

enum { kMaxDescriptors = 64, kMaxMappedAfterBarrier = 24 };

static int count_descriptors(void) {
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL)
    if (e->d_name[0] != '.') ++n;
  closedir(dir);
  return n - 1; /* the directory's own descriptor */
}

/* Mappings of distinct /dev/shm files. */
static int count_shm_mappings(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == NULL) return -1;
  char line[512], last[512] = "";
  int n = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    char *path = strstr(line, "/dev/shm/");
    if (path == NULL || strcmp(path, last) == 0) continue;
    snprintf(last, sizeof last, "%s", path);
    ++n;
  }
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  int mine[2] = {count_shm_mappings(), count_descriptors()}, most[2];
  CHECK_MPI(MPI_Allreduce(mine, most, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  const int ferry = mt_is_ferry();
  CHECK(!ferry || most[0] <= kMaxMappedAfterBarrier,
        "after MPI_Init and a barrier a rank maps %d shared-memory files (of %d ranks; at most %d expected)",
        most[0], size, kMaxMappedAfterBarrier);

  /* First contact in a ring, both ways. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  CHECK(got == left, "ring: got %d from rank %d", got, left);

  /* Every pair meets. */
  int *out = mt_malloc(sizeof(int) * (size_t)size), *in = mt_malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) out[r] = rank * size + r;
  CHECK_MPI(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r) CHECK(in[r] == r * size + rank, "alltoall: %d from rank %d", in[r], r);
  free(out);
  free(in);

  mine[1] = count_descriptors();
  CHECK_MPI(MPI_Allreduce(&mine[1], &most[1], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(!ferry || most[1] <= kMaxDescriptors,
        "after an alltoall among %d ranks a rank holds %d file descriptors (at most %d expected)", size,
        most[1], kMaxDescriptors);
  if (rank == 0) printf("launch_many_ranks: %d ranks, at most %d shm files mapped after init, %d descriptors\n",
                        size, most[0], most[1]);
  mt_pass();
  MPI_Finalize();
  return 0;
}
