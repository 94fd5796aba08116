/*
 * The shared file pointer needs nobody else inside MPI (issue 14): while
 * rank 0 (which owned the pointer in earlier designs) sleeps outside MPI,
 * the other ranks append records with MPI_File_write_shared,
 * MPI_File_iwrite_shared and read MPI_File_get_position_shared, and must
 * finish long before rank 0 wakes (they did not wait for it). Then rank 0
 * appends its own records, and every record is in the file once, whole,
 * with no gap and no overlap.
 */
#define TEST_NAME "io_shared_pointer_owner_away"
#include <time.h>

#include "mpitest.h"
#include "iotest.h"

#define ROUNDS 20
#define LENGTH 5         /* ints per record: rank, round, 3 of payload */
#define AWAY_SECONDS 3.0 /* rank 0's nap */

static int rank, size;

static void make_record(int *rec, int r, int round) {
  rec[0] = r;
  rec[1] = round;
  for (int i = 2; i < LENGTH; ++i) rec[i] = r * 100000 + round * 100 + i;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 16, "at most 16 ranks");
  io_make_dir();
  char path[600];
  io_path("away", path, sizeof path);

  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);

  int rec[LENGTH];
  MPI_Status st;
  if (rank == 0) {
    /* Computing, outside MPI. */
    struct timespec nap = {(time_t)AWAY_SECONDS, 0};
    while (nanosleep(&nap, &nap) != 0) {
    }
  } else {
    double start = MPI_Wtime();
    for (int round = 0; round < ROUNDS; ++round) {
      make_record(rec, rank, round);
      if (round % 2 == 0) {
        CHECK_MPI(MPI_File_write_shared(fh, rec, LENGTH, MPI_INT, &st));
      } else {
        MPI_Request req;
        CHECK_MPI(MPI_File_iwrite_shared(fh, rec, LENGTH, MPI_INT, &req));
        CHECK_MPI(MPI_Wait(&req, &st));
      }
      MPI_Offset pos = -1;
      CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
      CHECK(pos >= (MPI_Offset)(round + 1) * LENGTH && pos % LENGTH == 0,
            "get_position_shared gave %lld after %d records of mine", (long long)pos, round + 1);
    }
    double took = MPI_Wtime() - start;
    if (rank == 1) printf("%s: rank 1: %d records in %.4f s while rank 0 was outside MPI\n", TEST_NAME, ROUNDS, took);
    /* Half the nap: a generous bound on a loaded machine for 2 * ROUNDS
     * pointer operations, and far below the nap they would wait out. */
    CHECK(took < AWAY_SECONDS / 2, "rank %d: %d shared-pointer writes took %.2f s while rank 0 was outside MPI "
          "for %.1f s: they waited for it", rank, ROUNDS, took, AWAY_SECONDS);
  }
  /* Back in MPI: rank 0's records go after (or between) the others'. */
  if (rank == 0)
    for (int round = 0; round < ROUNDS; ++round) {
      make_record(rec, 0, round);
      CHECK_MPI(MPI_File_write_shared(fh, rec, LENGTH, MPI_INT, &st));
    }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == (MPI_Offset)size * ROUNDS * LENGTH, "the shared pointer is at %lld, expected %d", (long long)pos,
        size * ROUNDS * LENGTH);
  size_t bytes = 0;
  int *data = (int *)io_slurp(path, &bytes);
  CHECK(bytes == (size_t)size * ROUNDS * LENGTH * sizeof(int), "the file has %zu bytes, expected %zu", bytes,
        (size_t)size * ROUNDS * LENGTH * sizeof(int));
  static int seen[16][ROUNDS];
  for (size_t at = 0; at < bytes / sizeof(int); at += LENGTH) {
    int r = data[at], round = data[at + 1];
    CHECK(r >= 0 && r < size && round >= 0 && round < ROUNDS, "int %zu: not a record header (%d, %d)", at, r, round);
    int want[LENGTH];
    make_record(want, r, round);
    CHECK(memcmp(data + at, want, sizeof want) == 0, "record (%d, %d) at int %zu is torn", r, round, at);
    CHECK(!seen[r][round], "record (%d, %d) is in the file twice", r, round);
    seen[r][round] = 1;
  }
  free(data);

  CHECK_MPI(MPI_File_close(&fh));
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
