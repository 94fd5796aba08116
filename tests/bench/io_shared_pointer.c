/*
 * io_shared_pointer: the cost of one shared-file-pointer operation,
 * standard MPI C only.
 *
 *   --iters N   timed operations per rank and kind (default 2000)
 *   --dir PATH  where the file goes (default $TMPDIR or /tmp)
 *
 * Every rank does, at the same time (from a barrier), N of each:
 *   write_at 8 B          the data access alone, at this rank's own offsets
 *   write_shared 8 B      a fetch-and-add of the pointer plus the same write
 *   get_position_shared   the pointer alone (read, no data)
 * Prints "# op ranks us/op" lines: the mean time per call of the slowest
 * rank; write_shared minus write_at is what the pointer costs. With every
 * rank calling, the owner of a pointer served by a process is inside MPI
 * throughout (the best case for that design).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *dir = getenv("TMPDIR");
  int iters = 2000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
  }
  if (dir == NULL || !*dir) dir = "/tmp";
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[1024];
  snprintf(path, sizeof path, "%s/bench_io_shared_pointer.%d", dir, (int)getppid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  double word = rank;
  MPI_Offset position;
  if (rank == 0) printf("# op ranks us/op\n");
  static const char *const names[] = {"write_at_8B", "write_shared_8B", "get_position_shared"};
  for (int kind = 0; kind < 3; kind++) {
    for (int pass = 0; pass < 2; pass++) { /* a warm-up pass, then the timed one */
      int n = pass == 0 ? iters / 10 : iters;
      MPI_Barrier(MPI_COMM_WORLD);
      double t = MPI_Wtime();
      for (int i = 0; i < n; i++) {
        if (kind == 0) MPI_File_write_at(fh, (MPI_Offset)(i * size + rank) * 8, &word, 1, MPI_DOUBLE, MPI_STATUS_IGNORE);
        else if (kind == 1) MPI_File_write_shared(fh, &word, 1, MPI_DOUBLE, MPI_STATUS_IGNORE);
        else MPI_File_get_position_shared(fh, &position);
      }
      t = MPI_Wtime() - t;
      double slowest;
      MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0 && pass == 1) printf("%s %d %.2f\n", names[kind], size, slowest / n * 1e6);
    }
  }
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
