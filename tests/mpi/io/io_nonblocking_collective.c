/*
 * The nonblocking collective data accesses progress in the background
 * (issue 14; src/io/nonblocking_collective.h):
 *  - away: rank 0 starts MPI_File_iwrite_all and goes outside MPI (a nap)
 *    before the other ranks have even started theirs; its call must return
 *    at once, and the others' MPI_Wait must end long before rank 0 wakes,
 *    though two-phase aggregation needs rank 0's data and rank 0's
 *    aggregator (they did not wait for it to re-enter MPI);
 *  - order: several outstanding iwrite_all / iwrite_at_all on one file,
 *    through a strided view and a strided memory type, started between a
 *    blocking write_at_all and collectives on MPI_COMM_WORLD, waited in
 *    reverse order; then several outstanding iread_all through another
 *    strided view. The file is checked byte for byte, every read too;
 *  - a set_view and a set_atomicity made while an access is outstanding
 *    (erroneous in MPI: Ferry waits for it) do not change that access;
 *  - an MPI_Test polling loop, the _c forms, and the counts in statuses;
 *  - errors come at the wait, with the blocking form's class on every rank;
 *  - MPI_File_close and MPI_Finalize with a request outstanding.
 */
#define TEST_NAME "io_nonblocking_collective"
#include <time.h>

#include "mpitest.h"
#include "iotest.h"

#define N 600            /* ints per rank per access */
#define DELAY_SECONDS 0.8 /* the others start this late in "away" */
#define AWAY_SECONDS 2.0  /* rank 0's nap */

static int rank, size;

static void nap(double seconds) {
  struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&t, &t) != 0) {
  }
}

/* Collective buffering always, in rounds of 1 KiB: every access is
 * two-phase, so each rank's data goes through another rank's aggregator. */
static MPI_Info two_phase_hints(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "cb_buffer_size", "1024");
  return info;
}

/* A view of blocks of `block` ints, the ranks' blocks in turn: rank r's
 * int k is the file's int (k / block) * size * block + r * block + k % block. */
static MPI_Datatype tiled;
static void set_tiled_view(MPI_File fh, int block) {
  MPI_Datatype contig;
  MPI_Type_contiguous(block, MPI_INT, &contig);
  MPI_Type_create_resized(contig, 0, (MPI_Aint)size * block * (MPI_Aint)sizeof(int), &tiled);
  MPI_Type_commit(&tiled);
  MPI_Type_free(&contig);
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * block * (MPI_Offset)sizeof(int), MPI_INT, tiled, "native",
                              MPI_INFO_NULL));
  MPI_Type_free(&tiled); /* the view keeps its own */
}
static long file_int(int r, long k, int block) { return (k / block) * size * block + (long)r * block + k % block; }

static int value(int phase, int r, long k) { return phase * 10000000 + r * 100000 + (int)k; }

static void check_count(MPI_Status *st, MPI_Datatype t, int want, const char *what) {
  int got = -1;
  MPI_Get_count(st, t, &got);
  CHECK(got == want, "%s: MPI_Get_count gave %d, expected %d", what, got, want);
}

/* Rank 0 away from MPI while the others start, wait and finish. */
static void away(const char *path) {
  MPI_File fh;
  MPI_Info info = two_phase_hints();
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  set_tiled_view(fh, 4);
  int *buf = (int *)mt_malloc(N * sizeof(int));
  for (long k = 0; k < N; ++k) buf[k] = value(1, rank, k);
  MPI_Request req;
  MPI_Status st;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  if (rank == 0) {
    CHECK_MPI(MPI_File_iwrite_all(fh, buf, N, MPI_INT, &req));
    double call = MPI_Wtime() - start;
    printf("%s: rank 0: MPI_File_iwrite_all returned after %.4f s, before the others started\n", TEST_NAME, call);
    CHECK(call < DELAY_SECONDS / 2, "rank 0: MPI_File_iwrite_all took %.2f s: it waited for the others, who "
          "started %.1f s late", call, DELAY_SECONDS);
    nap(AWAY_SECONDS); /* computing, outside MPI */
  } else {
    nap(DELAY_SECONDS);
    CHECK_MPI(MPI_File_iwrite_all(fh, buf, N, MPI_INT, &req));
    CHECK_MPI(MPI_Wait(&req, &st));
    double done = MPI_Wtime() - start;
    check_count(&st, MPI_INT, N, "away: iwrite_all");
    if (rank == 1)
      printf("%s: rank 1: MPI_Wait done %.4f s after the start, rank 0 outside MPI until %.1f s\n", TEST_NAME, done,
             AWAY_SECONDS);
    CHECK(done < DELAY_SECONDS + (AWAY_SECONDS - DELAY_SECONDS) / 2,
          "rank %d: MPI_Wait ended %.2f s after the start: it waited for rank 0 to re-enter MPI at %.1f s", rank,
          done, AWAY_SECONDS);
  }
  if (rank == 0) {
    CHECK_MPI(MPI_Wait(&req, &st));
    check_count(&st, MPI_INT, N, "away: iwrite_all on rank 0");
  }
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    size_t bytes = 0;
    int *data = (int *)io_slurp(path, &bytes);
    CHECK(bytes == (size_t)size * N * sizeof(int), "away: %zu bytes in the file, expected %zu", bytes,
          (size_t)size * N * sizeof(int));
    for (int r = 0; r < size; ++r)
      for (long k = 0; k < N; ++k)
        CHECK(data[file_int(r, k, 4)] == value(1, r, k), "away: rank %d's int %ld is %d, expected %d", r, k,
              data[file_int(r, k, 4)], value(1, r, k));
    free(data);
  }
  free(buf);
}

/* Several accesses outstanding, in order with the file's other collectives. */
static void order(const char *path) {
  MPI_File fh;
  MPI_Info info = two_phase_hints();
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  set_tiled_view(fh, 4);

  /* Phase 1 at view ints [0, N), phase 2 (a strided memory type: every
   * other int) at [N, 2N), both by the file pointer; phase 3 at [2N, 3N) by
   * an explicit offset, _c form; phase 4 blocking, at [3N, 4N), in between. */
  int *one = (int *)mt_malloc(N * sizeof(int)), *two = (int *)mt_malloc(2 * N * sizeof(int));
  int *three = (int *)mt_malloc(N * sizeof(int)), *four = (int *)mt_malloc(N * sizeof(int));
  for (long k = 0; k < N; ++k) {
    one[k] = value(1, rank, k);
    two[2 * k] = value(2, rank, N + k);
    two[2 * k + 1] = -1; /* the gaps of the memory type: never written */
    three[k] = value(3, rank, 2 * N + k);
    four[k] = value(4, rank, 3 * N + k);
  }
  MPI_Datatype every_other;
  MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Request req[3];
  MPI_Status st[3], st4;
  CHECK_MPI(MPI_File_iwrite_all(fh, one, N, MPI_INT, &req[0]));
  int sum = 0, ones = 1;
  CHECK_MPI(MPI_Allreduce(&ones, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size, "MPI_Allreduce between the starts gave %d", sum);
  CHECK_MPI(MPI_File_iwrite_all(fh, two, 1, every_other, &req[1]));
  MPI_Type_free(&every_other); /* freed while in use: the access keeps it */
  CHECK_MPI(MPI_File_write_at_all(fh, 3 * N, four, N, MPI_INT, &st4));
  check_count(&st4, MPI_INT, N, "write_at_all between the starts");
  CHECK_MPI(MPI_File_iwrite_at_all_c(fh, 2 * N, three, (MPI_Count)N, MPI_INT, &req[2]));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 2 * N, "the file pointer is at %lld after two iwrite_all of %d ints, expected %d", (long long)pos, N,
        2 * N);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 2; i >= 0; --i) CHECK_MPI(MPI_Wait(&req[i], &st[i]));
  check_count(&st[0], MPI_INT, N, "iwrite_all 1");
  check_count(&st[1], MPI_INT, N, "iwrite_all 2 (strided memory)");
  MPI_Count c = -1;
  MPI_Get_count_c(&st[2], MPI_INT, &c);
  CHECK(c == N, "iwrite_at_all_c: MPI_Get_count_c gave %lld", (long long)c);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);

  /* Byte for byte, as POSIX sees the file. */
  size_t bytes = 0;
  int *data = (int *)io_slurp(path, &bytes);
  CHECK(bytes == (size_t)size * 4 * N * sizeof(int), "%zu bytes in the file, expected %zu", bytes,
        (size_t)size * 4 * N * sizeof(int));
  int *model = (int *)mt_malloc(bytes);
  for (int r = 0; r < size; ++r)
    for (long k = 0; k < 4 * N; ++k) model[file_int(r, k, 4)] = value(1 + (int)(k / N), r, k);
  for (size_t i = 0; i < bytes / sizeof(int); ++i)
    CHECK(data[i] == model[i], "file int %zu is %d, expected %d", i, data[i], model[i]);
  free(data);

  /* Another strided view (blocks of 3), three reads outstanding: two by the
   * pointer, one _c form by an explicit offset; then a polling loop. */
  set_tiled_view(fh, 3);
  const long total = 4 * N; /* ints per rank in the file */
  int *in[3];
  for (int i = 0; i < 3; ++i) {
    in[i] = (int *)mt_malloc(N * sizeof(int));
    memset(in[i], 0xff, N * sizeof(int));
  }
  CHECK_MPI(MPI_File_iread_all(fh, in[0], N, MPI_INT, &req[0]));
  CHECK_MPI(MPI_File_iread_all_c(fh, in[1], (MPI_Count)N, MPI_INT, &req[1]));
  CHECK_MPI(MPI_File_iread_at_all(fh, total - N, in[2], N, MPI_INT, &req[2]));
  CHECK_MPI(MPI_Waitall(3, req, st));
  const long first[3] = {0, N, total - N};
  for (int i = 0; i < 3; ++i) {
    check_count(&st[i], MPI_INT, N, "iread");
    for (long k = 0; k < N; ++k) {
      int want = model[file_int(rank, first[i] + k, 3)];
      CHECK(in[i][k] == want, "read %d: int %ld is %d, expected %d", i, k, in[i][k], want);
    }
  }
  memset(in[0], 0xff, N * sizeof(int));
  CHECK_MPI(MPI_File_iread_at_all(fh, N / 2, in[0], N, MPI_INT, &req[0]));
  int flag = 0;
  long polls = 0;
  double polled = MPI_Wtime();
  while (!flag) {
    CHECK_MPI(MPI_Test(&req[0], &flag, &st[0]));
    ++polls;
  }
  polled = MPI_Wtime() - polled;
  check_count(&st[0], MPI_INT, N, "iread_at_all by MPI_Test");
  for (long k = 0; k < N; ++k)
    CHECK(in[0][k] == model[file_int(rank, N / 2 + k, 3)], "polled read: int %ld is %d", k, in[0][k]);

  /* set_view and set_atomicity while a write is outstanding: erroneous in
   * MPI (§13.3); Ferry waits for it, and the write keeps its view. */
  for (long k = 0; k < N; ++k) one[k] = value(5, rank, k);
  CHECK_MPI(MPI_File_iwrite_at_all(fh, 0, one, N, MPI_INT, &req[0]));
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  set_tiled_view(fh, 4);
  CHECK_MPI(MPI_Wait(&req[0], &st[0]));
  check_count(&st[0], MPI_INT, N, "iwrite_at_all before set_view");
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  data = (int *)io_slurp(path, &bytes);
  for (int r = 0; r < size; ++r)
    for (long k = 0; k < N; ++k) model[file_int(r, k, 3)] = value(5, r, k);
  for (size_t i = 0; i < bytes / sizeof(int); ++i)
    CHECK(data[i] == model[i], "after the blocks-of-3 write: file int %zu is %d, expected %d", i, data[i], model[i]);
  free(data);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Close with a write outstanding: erroneous too (§13.2.2); the close
   * waits, and the request still completes with its status. */
  CHECK_MPI(MPI_File_iwrite_all(fh, four, N, MPI_INT, &req[0]));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Wait(&req[0], &st[0]));
  check_count(&st[0], MPI_INT, N, "iwrite_all outstanding at close");
  if (rank == 0) {
    data = (int *)io_slurp(path, &bytes);
    for (int r = 0; r < size; ++r)
      for (long k = 0; k < N; ++k)
        CHECK(data[file_int(r, k, 4)] == value(4, r, 3 * N + k), "closed with a write outstanding: rank %d's int %ld "
              "is %d", r, k, data[file_int(r, k, 4)]);
    free(data);
  }
  printf("%s: rank %d: %ld MPI_Test calls in %.4f s for one iread_at_all\n", TEST_NAME, rank, polls, polled);
  for (int i = 0; i < 3; ++i) free(in[i]);
  free(model);
  free(one);
  free(two);
  free(three);
  free(four);
}

/* What the blocking form rejects fails the request, on every rank alike. */
static void errors(const char *path) {
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  int buf[4] = {1, 2, 3, 4};
  MPI_Request req;
  MPI_Status st;
  CHECK_MPI(MPI_File_iread_all(fh, buf, 4, MPI_INT, &req));
  EXPECT_CLASS(MPI_Wait(&req, &st), MPI_ERR_ACCESS, "MPI_File_iread_all", NULL);
  /* Only rank 1's arguments are wrong: 3 bytes through a view of ints. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_iwrite_at_all(fh, rank * 4, buf, rank == 1 ? 3 : 4, rank == 1 ? MPI_BYTE : MPI_INT, &req));
  EXPECT_CLASS(MPI_Wait(&req, &st), MPI_ERR_TYPE, "MPI_File_iwrite_at_all", NULL);
  /* The file works on. */
  CHECK_MPI(MPI_File_iwrite_at_all(fh, rank * 4, buf, 4, MPI_INT, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  check_count(&st, MPI_INT, 4, "iwrite_at_all after the errors");
  CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  away(io_path("away", path, sizeof path));
  order(io_path("order", path, sizeof path));
  errors(io_path("errors", path, sizeof path));

  /* MPI_Finalize with a write outstanding on a file left open: no crash,
   * and the write is done by the time rank 0's MPI_Finalize returns. */
  char left[600];
  io_path("left_open", left, sizeof left);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, left, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  static int last[N];
  for (long k = 0; k < N; ++k) last[k] = value(6, rank, k);
  MPI_Request req;
  CHECK_MPI(MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * N * (MPI_Offset)sizeof(int), last, N, MPI_INT, &req));
  char dir[512];
  snprintf(dir, sizeof dir, "%s", io_dir);
  MPI_Finalize(); /* fh left open, req never waited for, on purpose */

  if (rank == 0) {
    size_t bytes = 0;
    int *data = (int *)io_slurp(left, &bytes);
    int bad = bytes != (size_t)size * N * sizeof(int);
    for (int r = 0; !bad && r < size; ++r)
      for (long k = 0; !bad && k < N; ++k) bad = data[(long)r * N + k] != value(6, r, k);
    free(data);
    if (bad) {
      fprintf(stderr, "%s: FAILED: the write outstanding at MPI_Finalize is not in the file (%zu bytes)\n", TEST_NAME,
              bytes);
      return 1;
    }
    unlink(left);
    unlink(io_path("away", path, sizeof path));
    unlink(io_path("order", path, sizeof path));
    unlink(io_path("errors", path, sizeof path));
    if (rmdir(dir) != 0) {
      fprintf(stderr, "%s: FAILED: rmdir(%s): %s\n", TEST_NAME, dir, strerror(errno));
      return 1;
    }
    printf("%s: OK\n", TEST_NAME);
  }
  return 0;
}
