/*
 * io_nonblocking_collective: what starting a small nonblocking collective
 * access costs against the blocking one, standard MPI C only.
 *
 *   --iters N   timed operations per rank and kind (default 1000)
 *   --dir PATH  where the file goes (default $TMPDIR or /tmp)
 *
 * Every rank does, at the same time (from a barrier), N of each, 64 B per
 * rank per call at the rank's own offsets (ranges that do not interleave:
 * the direct path, so the collective part is all there is to compare):
 *   iprobe_before         MPI_Iprobe, before any nonblocking collective
 *   write_at_all          the blocking call
 *   iwrite_at_all_start   the nonblocking call alone (the request is waited
 *                         for outside the timed part, after each call)
 *   iwrite_at_all_wait    the nonblocking call and its MPI_Wait
 *   iprobe_after          MPI_Iprobe again (the engine lock is now taken)
 * Prints "# op ranks us/op" lines: the mean time per call of the slowest rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { IPROBE_BEFORE, WRITE_ALL, ISTART, IWAIT, IPROBE_AFTER, KINDS };
static const char *const names[] = {"iprobe_before", "write_at_all", "iwrite_at_all_start", "iwrite_at_all_wait",
                                    "iprobe_after"};

int main(int argc, char **argv) {
  const char *dir = getenv("TMPDIR");
  int iters = 1000;
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
  snprintf(path, sizeof path, "%s/bench_io_nonblocking_collective.%d", dir, (int)getppid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  double data[8];
  for (int i = 0; i < 8; i++) data[i] = rank + i;
  if (rank == 0) printf("# op ranks us/op\n");
  for (int kind = 0; kind < KINDS; kind++) {
    for (int pass = 0; pass < 2; pass++) { /* a warm-up pass, then the timed one */
      int n = pass == 0 ? iters / 10 : iters;
      if (kind == IPROBE_BEFORE && pass == 0) n = 0; /* no warm-up that might start anything */
      MPI_Barrier(MPI_COMM_WORLD);
      double t = 0;
      for (int i = 0; i < n; i++) {
        MPI_Offset at = (MPI_Offset)(i * size + rank) * (MPI_Offset)sizeof data;
        MPI_Request req;
        int flag;
        double t0 = MPI_Wtime();
        switch (kind) {
          case IPROBE_BEFORE:
          case IPROBE_AFTER: MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); break;
          case WRITE_ALL: MPI_File_write_at_all(fh, at, data, 8, MPI_DOUBLE, MPI_STATUS_IGNORE); break;
          case ISTART:
            MPI_File_iwrite_at_all(fh, at, data, 8, MPI_DOUBLE, &req);
            t += MPI_Wtime() - t0;
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            continue;
          case IWAIT:
            MPI_File_iwrite_at_all(fh, at, data, 8, MPI_DOUBLE, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            break;
        }
        t += MPI_Wtime() - t0;
      }
      double slowest;
      MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0 && pass == 1) printf("%s %d %.3f\n", names[kind], size, slowest / n * 1e6);
    }
  }
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
