/*
 * What MPIX_Checkpoint's commit costs over writing the same bytes with plain
 * write + fsync (issue 15 asks for at most 5%). Ferry only (mpix.h).
 *
 *   FERRY_CHECKPOINT_DIR=/tmp/ck build/bin/mpirun -n 4 build/tests/bench/checkpoint_commit [--size 64M] [--reps 5]
 *
 * Each rank writes --size bytes per repetition, --reps times (a) by hand
 * over its own file (O_TRUNC: the old blocks are freed on the way, as the
 * commit frees those of the epoch it retires) with write() and fsync(), then --reps times (b) through a
 * save hook that does the same write() without the fsync, committed by
 * MPIX_Checkpoint (fsync of the file and its directory, a CRC-32C read of
 * it, the manifest and its rename, retiring the epoch beyond
 * FERRY_CHECKPOINT_KEEP). Both are timed from a barrier to the slowest rank's
 * end; the median of the repetitions is printed.
 */
#include <fcntl.h>
#include <mpi.h>
#include <mpix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *data;
static long bytes;

static int write_all(const char *path, int do_fsync) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 1;
  for (long done = 0; done < bytes;) {
    ssize_t n = write(fd, data + done, (size_t)(bytes - done));
    if (n <= 0) return close(fd), 1;
    done += n;
  }
  if (do_fsync && fsync(fd) != 0) return close(fd), 1;
  return close(fd);
}

static int save(MPI_Comm comm, const char *dir, void *state) {
  char path[4096];
  snprintf(path, sizeof path, "%s/data.bin", dir);
  return write_all(path, 0);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, reps = 5;
  bytes = 64L << 20;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--size")) bytes = atol(argv[i + 1]) << (strchr(argv[i + 1], 'M') ? 20 : 0);
    if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
  }
  const char *dir = getenv("FERRY_CHECKPOINT_DIR");
  if (dir == NULL || *dir == '\0') {
    if (rank == 0) fprintf(stderr, "checkpoint_commit: set FERRY_CHECKPOINT_DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  data = malloc((size_t)bytes);
  for (long i = 0; i < bytes; ++i) data[i] = (char)(i * 131 + rank);
  MPIX_Checkpoint_hook(save, NULL, NULL);
  char plain[4096];
  snprintf(plain, sizeof plain, "%s/plain.%d", dir, rank);

  double *t_plain = malloc(sizeof(double) * (size_t)reps), *t_commit = malloc(sizeof(double) * (size_t)reps);
  /* All plain writes first, then all commits: removing the epoch that a
   * commit retires runs on in the background, and must slow down the next
   * commit (as it would in a real run), not a plain write. */
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (write_all(plain, 1) != 0) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    t_plain[r] = MPI_Wtime() - t0;
  }
  unlink(plain);
  for (int r = 0; r < reps; ++r) {
    int epoch;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (MPIX_Checkpoint(MPI_COMM_WORLD, &epoch) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Barrier(MPI_COMM_WORLD);
    t_commit[r] = MPI_Wtime() - t0;
  }
  qsort(t_plain, (size_t)reps, sizeof(double), cmp);
  qsort(t_commit, (size_t)reps, sizeof(double), cmp);
  if (rank == 0) {
    double p = t_plain[reps / 2], c = t_commit[reps / 2];
    printf("checkpoint_commit: %d ranks x %ld MiB, median of %d: write+fsync %.3f s, MPIX_Checkpoint %.3f s, "
           "overhead %+.1f%%\n",
           size, bytes >> 20, reps, p, c, 100.0 * (c - p) / p);
  }
  free(data);
  MPI_Finalize();
  return 0;
}
