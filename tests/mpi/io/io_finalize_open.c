/*
 * A program that leaves a file open at MPI_Finalize must not hang there:
 * rank 0 goes straight from its own write_shared to MPI_Finalize, while the
 * other ranks use the shared pointer only later (after a nap). Afterwards
 * rank 0 finds every rank's int in the file (POSIX), and the shared
 * pointer's hidden file is gone (the directory can be removed).
 */
#define TEST_NAME "io_finalize_open"
#include "mpitest.h"
#include "iotest.h"
#include <time.h>

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  io_path("left-open", path, sizeof path);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  if (rank != 0) {
    struct timespec nap = {0, 300 * 1000 * 1000};
    nanosleep(&nap, NULL);
  }
  int word = rank + 1;
  MPI_Status st;
  CHECK_MPI(MPI_File_write_shared(fh, &word, 1, MPI_INT, &st));
  MPI_Finalize(); /* fh left open on purpose */

  if (rank == 0) {
    size_t bytes;
    int *data = (int *)io_slurp(path, &bytes);
    CHECK(bytes == (size_t)size * sizeof(int), "the file has %zu bytes, expected %zu", bytes, size * sizeof(int));
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += data[r];
    CHECK(sum == size * (size + 1) / 2, "the ints sum to %d, expected %d", sum, size * (size + 1) / 2);
    free(data);
    unlink(path);
    if (rmdir(io_dir) != 0) {
      fprintf(stderr, "%s: FAILED: rmdir(%s) after MPI_Finalize: %s (a hidden file left?)\n", TEST_NAME, io_dir,
              strerror(errno));
      return 1;
    }
    printf("%s: OK\n", TEST_NAME);
  }
  return 0;
}
