/*
 * Atomic mode (MPI-3.1 §13.6.1): with MPI_File_set_atomicity(true), writes
 * that overlap are seen whole. All ranks but 0 write the same 32 KiB of view
 * data again and again, each filling it with its own byte, through a
 * strided view (1 KiB blocks every 2 KiB), so that each access is 32 system
 * calls and an unlocked reader would catch a mix; rank 0 reads the region
 * the whole time and must always see one writer's byte everywhere. The
 * final content is one writer's too, and get_atomicity reports the mode.
 */
#define TEST_NAME "io_atomic"
#include "mpitest.h"
#include "iotest.h"

#define BLOCK 1024
#define BLOCKS 32
#define ROUNDS 150

static int rank, size;

static void check_whole(const unsigned char *buf, const char *when, int round) {
  for (int i = 1; i < BLOCK * BLOCKS; ++i)
    CHECK(buf[i] == buf[0], "%s %d: byte %d is %d but byte 0 is %d: a torn mix of two writes", when, round, i, buf[i],
          buf[0]);
  CHECK(buf[0] <= size, "%s %d: byte value %d was written by nobody", when, round, buf[0]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  io_path("atomic", path, sizeof path);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(BLOCKS, BLOCK, 2 * BLOCK, MPI_BYTE, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, strided, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  int flag = 0;
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1, "get_atomicity says %d after set_atomicity(1)", flag);

  unsigned char *buf = mt_malloc(BLOCK * BLOCKS);
  MPI_Status st;
  if (rank == 0) {
    memset(buf, 0, BLOCK * BLOCKS);
    CHECK_MPI(MPI_File_write_at(fh, 0, buf, BLOCK * BLOCKS, MPI_BYTE, &st));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 || size == 1) {
    /* The reader: until every writer said it is done. */
    int done = size == 1, reads = 0;
    MPI_Request finished = MPI_REQUEST_NULL;
    if (size > 1) CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &finished));
    while (!done || reads < 10) {
      CHECK_MPI(MPI_File_read_at(fh, 0, buf, BLOCK * BLOCKS, MPI_BYTE, &st));
      CHECK(io_status_bytes(&st) == BLOCK * BLOCKS, "read %lld bytes", (long long)io_status_bytes(&st));
      check_whole(buf, "read", reads++);
      if (!done) CHECK_MPI(MPI_Test(&finished, &done, MPI_STATUS_IGNORE));
    }
    if (finished != MPI_REQUEST_NULL) CHECK_MPI(MPI_Wait(&finished, MPI_STATUS_IGNORE));
  } else {
    memset(buf, rank, BLOCK * BLOCKS);
    for (int round = 0; round < ROUNDS; ++round)
      CHECK_MPI(MPI_File_write_at(fh, 0, buf, BLOCK * BLOCKS, MPI_BYTE, &st));
    MPI_Request finished;
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &finished));
    CHECK_MPI(MPI_Wait(&finished, MPI_STATUS_IGNORE));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_read_at(fh, 0, buf, BLOCK * BLOCKS, MPI_BYTE, &st));
  check_whole(buf, "final read", 0);
  CHECK(size == 1 || buf[0] != 0, "the writers' data never arrived");

  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0, "get_atomicity says %d after set_atomicity(0)", flag);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Type_free(&strided));
  free(buf);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
