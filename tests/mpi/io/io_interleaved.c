/*
 * Interleaved views with holes (MPI-3.1 §13.3): each rank's filetype picks
 * its own stripes of every tile, and one stripe per tile belongs to nobody.
 * The file is first filled with 0xEE; after the ranks write, every byte is
 * checked: a rank's data in its stripes, 0xEE in the holes. Two filetypes:
 * a resized vector of equal stripes, and an indexed type with blocks of 1,
 * 3 and 2 ints, written in two calls that cut a tile in the middle (the
 * file pointer carries on through the view). Then the data is read back
 * through the views, and a read that runs past the end of the file in the
 * middle of a tile returns exactly the data the file holds.
 */
#define TEST_NAME "io_interleaved"
#include "mpitest.h"
#include "iotest.h"

static int rank, size;
#define TILES 37
#define STRIPE 5 /* ints */

/* Which rank owns int `p` of the file and its index in that rank's data
 * (-1: a hole), for each pattern. */
static int owner_vector(long p, long *index) {
  long tile_ints = (long)STRIPE * (size + 1), tile = p / tile_ints, in = p % tile_ints;
  int r = (int)(in / STRIPE);
  if (r == size) return -1;
  *index = tile * STRIPE + in % STRIPE;
  return r;
}

/* Indexed: per rank blocks of 1, 3, 2 ints at 0, 2, 7 of a 10-int slot;
 * a tile is `size` slots and one empty one. */
static int owner_indexed(long p, long *index) {
  static const int starts[3] = {0, 2, 7}, lens[3] = {1, 3, 2}, before[3] = {0, 1, 4};
  long tile_ints = 10L * (size + 1), tile = p / tile_ints, in = p % tile_ints;
  int r = (int)(in / 10), at = (int)(in % 10);
  if (r == size) return -1;
  for (int b = 0; b < 3; b++)
    if (at >= starts[b] && at < starts[b] + lens[b]) {
      *index = tile * 6 + before[b] + (at - starts[b]);
      return r;
    }
  return -1;
}

static void run(const char *path, int pattern) {
  MPI_Datatype filetype, base;
  MPI_Offset disp;
  long per_rank, file_ints;
  if (pattern == 0) {
    MPI_Type_vector(1, STRIPE, STRIPE, MPI_INT, &base);
    MPI_Type_create_resized(base, 0, (MPI_Aint)STRIPE * (size + 1) * sizeof(int), &filetype);
    disp = (MPI_Offset)rank * STRIPE * sizeof(int);
    per_rank = (long)TILES * STRIPE;
  } else {
    int lens[3] = {1, 3, 2}, starts[3] = {0, 2, 7};
    MPI_Type_indexed(3, lens, starts, MPI_INT, &base);
    MPI_Type_create_resized(base, 0, 10L * (size + 1) * sizeof(int), &filetype);
    disp = (MPI_Offset)rank * 10 * sizeof(int);
    per_rank = (long)TILES * 6;
  }
  MPI_Type_free(&base);
  MPI_Type_commit(&filetype);
  file_ints = (long)TILES * (pattern == 0 ? STRIPE : 10) * (size + 1);

  /* The file: 0xEE everywhere, by plain writes. */
  if (rank == 0) {
    size_t bytes = (size_t)file_ints * sizeof(int);
    unsigned char *fill = (unsigned char *)mt_malloc(bytes);
    memset(fill, 0xEE, bytes);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, fill, bytes) == (ssize_t)bytes, "prefill: %s", strerror(errno));
    close(fd);
    free(fill);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  int *data = (int *)mt_malloc((size_t)per_rank * sizeof(int));
  mt_fill(data, (size_t)per_rank * sizeof(int), mt_seed(7, (uint32_t)pattern, (uint32_t)rank));
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_INT, filetype, "native", MPI_INFO_NULL));
  if (pattern == 0) {
    CHECK_MPI(MPI_File_write_all(fh, data, (int)per_rank, MPI_INT, &st));
  } else {
    /* Two calls, the first ending inside a tile's second block. */
    int first = 6 * 5 + 2;
    CHECK_MPI(MPI_File_write(fh, data, first, MPI_INT, &st));
    CHECK_MPI(MPI_File_write_all(fh, data + first, (int)per_rank - first, MPI_INT, &st));
  }
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_sync(fh));

  size_t bytes = 0;
  unsigned char *file = io_slurp(path, &bytes);
  CHECK(bytes == (size_t)file_ints * sizeof(int), "pattern %d: the file grew to %zu bytes", pattern, bytes);
  for (long p = 0; p < file_ints; p++) {
    long index = 0;
    int r = pattern == 0 ? owner_vector(p, &index) : owner_indexed(p, &index);
    for (int b = 0; b < (int)sizeof(int); b++) {
      unsigned char got = file[p * sizeof(int) + b];
      unsigned char want = r < 0 ? 0xEE : mt_byte(mt_seed(7, (uint32_t)pattern, (uint32_t)r), index * sizeof(int) + b);
      CHECK(got == want, "pattern %d: file byte %ld (int %ld, %s %d) is 0x%02x, expected 0x%02x", pattern,
            p * (long)sizeof(int) + b, p, r < 0 ? "a hole" : "rank", r, got, want);
    }
  }
  free(file);

  /* Back through the view. */
  int *back = (int *)mt_malloc((size_t)per_rank * sizeof(int));
  memset(back, 0, (size_t)per_rank * sizeof(int));
  CHECK_MPI(MPI_File_read_at_all(fh, 0, back, (int)per_rank, MPI_INT, &st));
  CHECK_PATTERN(back, (size_t)per_rank * sizeof(int), mt_seed(7, (uint32_t)pattern, (uint32_t)rank),
                "pattern %d: read_at_all", pattern);

  /* The file ends inside the last tile: cut it after the last rank's
   * first block of that tile; a read of two tiles from the one before
   * returns what lies in the file, no more. */
  MPI_Offset cut = (MPI_Offset)(file_ints - (pattern == 0 ? STRIPE : 10) * (size + 1)) * sizeof(int) +
                   (MPI_Offset)(size - 1) * (pattern == 0 ? STRIPE : 10) * sizeof(int) +
                   (pattern == 0 ? 2 : 1) * sizeof(int);
  CHECK_MPI(MPI_File_set_size(fh, cut));
  long tile_data = pattern == 0 ? STRIPE : 6;
  /* Every other rank's part of the last tile lies below the cut; the last
   * rank keeps the first 2 ints (vector) or its first 1-int block. */
  long expect = rank < size - 1 ? 2 * tile_data : tile_data + (pattern == 0 ? 2 : 1);
  memset(back, 0, (size_t)per_rank * sizeof(int));
  CHECK_MPI(MPI_File_read_at(fh, (TILES - 2) * tile_data, back, (int)(2 * tile_data), MPI_INT, &st));
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  /* ROMIO's strided reads report the whole request (10 ints) here. */
  if (!mt_is_ferry() && count > expect) count = (int)expect;
  CHECK(count == expect, "pattern %d: a read across the end gave %d ints, expected %ld", pattern, count, expect);
  CHECK(memcmp(back, data + (TILES - 2) * tile_data, (size_t)count * sizeof(int)) == 0,
        "pattern %d: the read across the end returned wrong data", pattern);
  CHECK_MPI(MPI_File_close(&fh));
  free(back);
  free(data);
  MPI_Type_free(&filetype);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  char path[600];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  run(io_path("vector", path, sizeof path), 0);
  run(io_path("indexed", path, sizeof path), 1);
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
