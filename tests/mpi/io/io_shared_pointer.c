/*
 * The shared file pointer (MPI-3.1 §13.4.4) is one pointer for all
 * processes, not a copy per process:
 *  - every rank appends records of different lengths with write_shared
 *    (blocking and nonblocking) at the same time; the file then holds each
 *    record exactly once, whole, with no gap and no overlap, and
 *    get_position_shared is the total on every rank;
 *  - write_ordered (and its split form) lays the ranks' data out in rank
 *    order after it; read_ordered and read_shared read it back;
 *  - seek_shared (SET, CUR, END) moves it for all, different arguments are
 *    MPI_ERR_NOT_SAME on every rank, and set_view puts it back to 0;
 *  - on an MPI_MODE_SEQUENTIAL file shared-pointer writes work,
 *    seek_shared is MPI_ERR_UNSUPPORTED_OPERATION, and a view set with
 *    MPI_DISPLACEMENT_CURRENT starts at the shared pointer.
 */
#define TEST_NAME "io_shared_pointer"
#include "mpitest.h"
#include "iotest.h"

#define ROUNDS 40
#define HEADER 3 /* ints: rank, round, length */

static int rank, size;

static int record_length(int r, int round) { return HEADER + (r * 7 + round * 3) % 11; }

static void make_record(int *rec, int r, int round) {
  int len = record_length(r, round);
  rec[0] = r;
  rec[1] = round;
  rec[2] = len;
  for (int i = HEADER; i < len; ++i) rec[i] = r * 100000 + round * 100 + i;
}

static void check_records(const int *data, size_t ints) {
  int seen[8][ROUNDS];
  memset(seen, 0, sizeof seen);
  size_t at = 0, records = 0;
  while (at < ints) {
    CHECK(at + HEADER <= ints, "a record header is cut off at int %zu of %zu", at, ints);
    int r = data[at], round = data[at + 1], len = data[at + 2];
    CHECK(r >= 0 && r < size && round >= 0 && round < ROUNDS, "int %zu: bad record header (%d, %d)", at, r, round);
    CHECK(len == record_length(r, round), "int %zu: record (%d, %d) has length %d, expected %d", at, r, round, len,
          record_length(r, round));
    CHECK(at + (size_t)len <= ints, "record (%d, %d) at int %zu is cut off by the end", r, round, at);
    int want[32];
    make_record(want, r, round);
    CHECK(memcmp(data + at, want, (size_t)len * sizeof(int)) == 0, "record (%d, %d) at int %zu is torn", r, round,
          at);
    CHECK(seen[r][round] == 0, "record (%d, %d) appears twice", r, round);
    seen[r][round] = 1;
    at += (size_t)len;
    ++records;
  }
  CHECK(records == (size_t)size * ROUNDS, "%zu records in the file, expected %d", records, size * ROUNDS);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 8, "at most 8 ranks");
  io_make_dir();
  char path[600];
  io_path("shared", path, sizeof path);

  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));

  /* Concurrent appends: every record once, whole. */
  size_t expected_ints = 0;
  for (int r = 0; r < size; ++r)
    for (int round = 0; round < ROUNDS; ++round) expected_ints += (size_t)record_length(r, round);
  for (int round = 0; round < ROUNDS; ++round) {
    int rec[32];
    MPI_Status st;
    make_record(rec, rank, round);
    if (round % 2 == 0) {
      CHECK_MPI(MPI_File_write_shared(fh, rec, rec[2], MPI_INT, &st));
    } else {
      MPI_Request req;
      CHECK_MPI(MPI_File_iwrite_shared(fh, rec, rec[2], MPI_INT, &req));
      CHECK_MPI(MPI_Wait(&req, &st));
    }
    CHECK(io_status_bytes(&st) == (MPI_Count)rec[2] * 4, "write_shared moved %lld bytes, expected %d",
          (long long)io_status_bytes(&st), rec[2] * 4);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == (MPI_Offset)expected_ints, "shared pointer at %lld after the appends, expected %zu", (long long)pos,
        expected_ints);
  size_t bytes = 0;
  unsigned char *data = io_slurp(path, &bytes);
  CHECK(bytes == expected_ints * sizeof(int), "file has %zu bytes, expected %zu", bytes, expected_ints * sizeof(int));
  check_records((const int *)data, bytes / sizeof(int));
  free(data);
  MPI_Barrier(MPI_COMM_WORLD); /* nobody reads the shared pointer after another moved it */

  /* Ordered writes after the records: rank r's r + 1 ints, in rank order;
   * the second half by the split form. */
  int mine[8];
  for (int i = 0; i < rank + 1; ++i) mine[i] = -(rank * 10 + i + 1);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, &st));
  CHECK(io_status_bytes(&st) == (MPI_Count)(rank + 1) * 4, "write_ordered moved %lld bytes",
        (long long)io_status_bytes(&st));
  CHECK_MPI(MPI_File_write_ordered_begin(fh, mine, rank + 1, MPI_INT));
  CHECK_MPI(MPI_File_write_ordered_end(fh, mine, &st));
  int per_call = size * (size + 1) / 2;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == (MPI_Offset)(expected_ints + 2 * (size_t)per_call), "shared pointer at %lld after ordered writes",
        (long long)pos);
  MPI_Barrier(MPI_COMM_WORLD);
  data = io_slurp(path, &bytes);
  const int *tail = (const int *)data + expected_ints;
  for (int pass = 0; pass < 2; ++pass)
    for (int r = 0, at = 0; r < size; ++r)
      for (int i = 0; i < r + 1; ++i, ++at)
        CHECK(tail[pass * per_call + at] == -(r * 10 + i + 1), "ordered pass %d: int %d is %d, expected %d", pass,
              at, tail[pass * per_call + at], -(r * 10 + i + 1));
  free(data);

  /* Read them back: seek_shared to the ordered part, read_ordered. */
  CHECK_MPI(MPI_File_seek_shared(fh, (MPI_Offset)expected_ints, MPI_SEEK_SET));
  int back[8] = {0};
  CHECK_MPI(MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st));
  for (int i = 0; i < rank + 1; ++i) CHECK(back[i] == mine[i], "read_ordered: int %d is %d, expected %d", i, back[i], mine[i]);
  CHECK_MPI(MPI_File_read_ordered_begin(fh, back, rank + 1, MPI_INT));
  CHECK_MPI(MPI_File_read_ordered_end(fh, back, &st));
  for (int i = 0; i < rank + 1; ++i) CHECK(back[i] == mine[i], "read_ordered_end: int %d is %d", i, back[i]);
  /* At the end now: a read_shared is empty, a short count and no error. */
  CHECK_MPI(MPI_File_read_shared(fh, back, 1, MPI_INT, &st));
  CHECK(io_status_bytes(&st) == 0, "read_shared at the end moved %lld bytes", (long long)io_status_bytes(&st));
  MPI_Barrier(MPI_COMM_WORLD);

  /* seek_shared: END, CUR; then read_shared of one record header. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == (MPI_Offset)(expected_ints + 2 * (size_t)per_call), "seek_shared(END): at %lld", (long long)pos);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_seek_shared(fh, -(MPI_Offset)(expected_ints + 2 * (size_t)per_call), MPI_SEEK_CUR));
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 0, "seek_shared(CUR) back to the start: at %lld", (long long)pos);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int header[HEADER];
    CHECK_MPI(MPI_File_read_shared(fh, header, HEADER, MPI_INT, &st));
    CHECK(header[2] == record_length(header[0], header[1]), "read_shared: a record header that is not one");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == HEADER, "after rank 0's read_shared the pointer is at %lld on rank %d, expected %d", (long long)pos,
        rank, HEADER);

  /* Bad collective arguments fail everywhere, and move nothing. */
  if (size > 1) {
    EXPECT_CLASS(MPI_File_seek_shared(fh, rank, MPI_SEEK_SET), MPI_ERR_NOT_SAME, "MPI_File_seek_shared", "offset");
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == HEADER, "a failed seek_shared moved the pointer to %lld", (long long)pos);
  }
  EXPECT_CLASS(MPI_File_seek_shared(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG, "MPI_File_seek_shared", NULL);
  MPI_Barrier(MPI_COMM_WORLD);

  /* set_view puts the shared pointer back to 0 (in the new etypes). */
  CHECK_MPI(MPI_File_set_view(fh, 4, MPI_SHORT, MPI_SHORT, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 0, "set_view left the shared pointer at %lld", (long long)pos);
  CHECK_MPI(MPI_File_close(&fh));

  /* A sequential file: shared-pointer writes, no seeking. */
  io_path("sequential", path, sizeof path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                          MPI_INFO_NULL, &fh));
  int word = rank + 1;
  CHECK_MPI(MPI_File_write_ordered(fh, &word, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_write_shared(fh, &word, 1, MPI_INT, &st));
  EXPECT_CLASS(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_seek_shared",
               NULL);
  /* MPI_DISPLACEMENT_CURRENT: the new view starts at the shared pointer. */
  CHECK_MPI(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  MPI_Offset disp = -1;
  MPI_Datatype etype, filetype;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &disp, &etype, &filetype, rep));
  CHECK(disp == (MPI_Offset)size * 2 * 4, "MPI_DISPLACEMENT_CURRENT gave disp %lld, expected %d", (long long)disp,
        size * 8);
  word = -(rank + 1);
  CHECK_MPI(MPI_File_write_ordered(fh, &word, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    data = io_slurp(path, &bytes);
    CHECK(bytes == (size_t)size * 3 * sizeof(int), "sequential file has %zu bytes", bytes);
    const int *w = (const int *)data;
    int sum = 0;
    for (int r = 0; r < size; ++r) {
      CHECK(w[r] == r + 1, "sequential file: ordered int %d is %d", r, w[r]);
      sum += w[size + r];
      CHECK(w[2 * size + r] == -(r + 1), "sequential file: int %d after the new view's start is %d", r, w[2 * size + r]);
    }
    CHECK(sum == size * (size + 1) / 2, "sequential file: the write_shared ints sum to %d", sum);
    free(data);
  }

  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
