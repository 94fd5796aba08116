/*
 * Data representations that store an element at another size than memory
 * (MPI-3.1 §13.5): the view's etype and filetype are read in the file's
 * sizes, the data is converted on its way, and statuses count memory
 * elements.
 *  1. external32 MPI_LONG (4 bytes in the file, 8 in memory on LP64):
 *     big-endian 4-byte values in the file (judged with POSIX reads),
 *     negative ones sign-extended when read back; MPI_Get_count counts
 *     longs; get_type_extent, get_byte_offset, seek, get_position, a
 *     nonblocking read and the shared file pointer count in 4-byte etypes;
 *  2. a long that needs more than 4 bytes: MPI_ERR_CONVERSION;
 *  3. strided filetypes of MPI_LONG, written with write_all and read with
 *     read_all by every rank: a vector resized with the extent
 *     MPI_File_get_type_extent gives (byte arguments are the file's), and a
 *     subarray (element arguments scale by themselves);
 *  4. a registered representation whose extent function stores each int
 *     in 8 bytes: the file holds 8 bytes per int, offsets and extents are
 *     the file's, independent and collective accesses read back.
 */
#define TEST_NAME "io_datarep_resized"
#include "mpitest.h"
#include "iotest.h"

#include <stdint.h>

#define N 100
#define K 37

static int rank, size;

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static long value(int r, int i) { return (i % 2 ? -1L : 1L) * ((long)r * 100000 + i); }

/* "wide-ints": each int as a little-endian int64 in the file. */
static int wide_write(void *userbuf, MPI_Datatype datatype, int count, void *filebuf, MPI_Offset position,
                      void *extra) {
  (void)extra;
  if (datatype != MPI_INT) return MPI_ERR_TYPE;
  const int *user = (const int *)userbuf + position;
  for (int i = 0; i < count; ++i) {
    int64_t v = user[i];
    memcpy((char *)filebuf + 8 * (size_t)i, &v, 8);
  }
  return MPI_SUCCESS;
}
static int wide_read(void *userbuf, MPI_Datatype datatype, int count, void *filebuf, MPI_Offset position,
                     void *extra) {
  (void)extra;
  if (datatype != MPI_INT) return MPI_ERR_TYPE;
  int *user = (int *)userbuf + position;
  for (int i = 0; i < count; ++i) {
    int64_t v;
    memcpy(&v, (char *)filebuf + 8 * (size_t)i, 8);
    user[i] = (int)v;
  }
  return MPI_SUCCESS;
}
static int wide_extent(MPI_Datatype datatype, MPI_Aint *extent, void *extra) {
  (void)extra;
  int bytes;
  MPI_Type_size(datatype, &bytes);
  *extent = datatype == MPI_INT ? 8 : bytes;
  return MPI_SUCCESS;
}

static void check_count(const MPI_Status *st, MPI_Datatype t, int want, const char *what) {
  int n = -7;
  MPI_Get_count(st, t, &n);
  CHECK(n == want, "%s: MPI_Get_count says %d, expected %d", what, n, want);
}

static void longs_in_external32(void) {
  char path[600];
  MPI_File fh;
  MPI_Status st;
  long out[N], back[N];
  for (int i = 0; i < N; ++i) out[i] = value(rank, i);
  io_path("longs", path, sizeof path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
  MPI_Aint extent = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG, &extent));
  CHECK(extent == 4, "MPI_LONG's external32 file extent is %ld", (long)extent);
  MPI_Offset disp = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, 5, &disp));
  CHECK(disp == 20, "etype 5 of an external32 MPI_LONG view is at byte %lld, expected 20", (long long)disp);

  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * N, out, N, MPI_LONG, &st));
  check_count(&st, MPI_LONG, N, "write_at of longs");
  MPI_Barrier(MPI_COMM_WORLD);
  size_t bytes;
  unsigned char *data = io_slurp(path, &bytes);
  CHECK(bytes == (size_t)size * N * 4, "the file has %zu bytes, expected %d (4 per long)", bytes, size * N * 4);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < N; ++i)
      CHECK(be32(data + ((size_t)r * N + i) * 4) == (uint32_t)(int32_t)value(r, i),
            "long %d of rank %d is stored as %#x", i, r, be32(data + ((size_t)r * N + i) * 4));
  free(data);

  /* Back, the peer's values, negative ones sign-extended. */
  int peer = (rank + 1) % size;
  memset(back, 0x5a, sizeof back);
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)peer * N, back, N, MPI_LONG, &st));
  check_count(&st, MPI_LONG, N, "read_at of longs");
  for (int i = 0; i < N; ++i) CHECK(back[i] == value(peer, i), "read back long %d: %ld", i, back[i]);

  /* The individual pointer in 4-byte etypes. */
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)rank * N + 10, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read(fh, back, 5, MPI_LONG, &st));
  check_count(&st, MPI_LONG, 5, "read of 5 longs");
  for (int i = 0; i < 5; ++i) CHECK(back[i] == value(rank, 10 + i), "read at the pointer: long %d", i);
  MPI_Offset at = -1;
  CHECK_MPI(MPI_File_get_position(fh, &at));
  CHECK(at == (MPI_Offset)rank * N + 15, "the pointer is at etype %lld, expected %lld", (long long)at,
        (long long)rank * N + 15);
  CHECK_MPI(MPI_File_get_byte_offset(fh, at, &disp));
  CHECK(disp == 4 * at, "etype %lld is at byte %lld", (long long)at, (long long)disp);
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position(fh, &at));
  CHECK(at == (MPI_Offset)size * N, "the end of the file is etype %lld, expected %d", (long long)at, size * N);

  /* The shared pointer moves by 4-byte etypes too. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_ordered(fh, back, 3, MPI_LONG, &st));
  check_count(&st, MPI_LONG, 3, "read_ordered of 3 longs");
  for (int i = 0; i < 3; ++i) CHECK(back[i] == value(0, 3 * rank + i), "read_ordered: long %d is %ld", i, back[i]);
  CHECK_MPI(MPI_File_get_position_shared(fh, &at));
  CHECK(at == 3 * size, "the shared pointer is at etype %lld, expected %d", (long long)at, 3 * size);

  /* Nonblocking: the pointer moves at the call by 4-byte etypes. */
  MPI_Request req;
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)peer * N, MPI_SEEK_SET));
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_iread(fh, back, N, MPI_LONG, &req));
  CHECK_MPI(MPI_File_get_position(fh, &at));
  CHECK(at == (MPI_Offset)peer * N + N, "after iread the pointer is at etype %lld", (long long)at);
  CHECK_MPI(MPI_Wait(&req, &st));
  check_count(&st, MPI_LONG, N, "iread of longs");
  for (int i = 0; i < N; ++i) CHECK(back[i] == value(peer, i), "iread: long %d is %ld", i, back[i]);

  /* 2. A long beyond 4 bytes cannot be stored. */
  MPI_Barrier(MPI_COMM_WORLD); /* every peer has read this rank's longs before one is rewritten */
  if (sizeof(long) > 4) {
    long big[3] = {1, (long)1 << 40, 3};
    EXPECT_CLASS(MPI_File_write_at(fh, 0, big, 3, MPI_LONG, &st), MPI_ERR_CONVERSION, "MPI_File_write_at",
                 "does not fit");
    unsigned long ubig = 1ul << 32;
    EXPECT_CLASS(MPI_File_write_at(fh, 0, &ubig, 1, MPI_UNSIGNED_LONG, &st), MPI_ERR_CONVERSION,
                 "MPI_File_write_at", "MPI_UNSIGNED_LONG");
    long smallest = -((long)1 << 31); /* fits */
    CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * N, &smallest, 1, MPI_LONG, &st));
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)rank * N, back, 1, MPI_LONG, &st));
    CHECK(back[0] == smallest, "-2^31 read back as %ld", back[0]);
  }
  CHECK_MPI(MPI_File_close(&fh));
}

/* Every rank's K longs interleaved with the others' in the file: long i of
 * rank r at file element i * size + r. */
static void check_interleaved(const char *path, const char *what) {
  size_t bytes;
  unsigned char *data = io_slurp(path, &bytes);
  CHECK(bytes == (size_t)size * K * 4, "%s: the file has %zu bytes, expected %d", what, bytes, size * K * 4);
  for (int i = 0; i < K; ++i)
    for (int r = 0; r < size; ++r)
      CHECK(be32(data + ((size_t)i * size + r) * 4) == (uint32_t)(int32_t)value(r, i),
            "%s: long %d of rank %d is stored as %#x", what, i, r, be32(data + ((size_t)i * size + r) * 4));
  free(data);
}

static void strided_collective(void) {
  char path[600];
  MPI_File fh;
  MPI_Status st;
  long out[K], back[K];
  for (int i = 0; i < K; ++i) out[i] = value(rank, i);

  /* A vector tiled with the file extent of MPI_LONG. */
  io_path("strided", path, sizeof path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  MPI_Aint ext = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG, &ext));
  MPI_Datatype column, filetype;
  CHECK_MPI(MPI_Type_vector(K, 1, size, MPI_LONG, &column));
  CHECK_MPI(MPI_Type_create_resized(column, 0, (MPI_Aint)K * size * ext, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * ext, MPI_LONG, filetype, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_get_type_extent(fh, filetype, &ext));
  CHECK(ext == (MPI_Aint)K * size * 4, "the filetype's file extent is %ld, expected %d", (long)ext, K * size * 4);
  MPI_Offset disp = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, 2, &disp));
  CHECK(disp == (MPI_Offset)(rank + 2 * size) * 4, "etype 2 of rank %d's view is at byte %lld", rank,
        (long long)disp);
  CHECK_MPI(MPI_File_write_all(fh, out, K, MPI_LONG, &st));
  check_count(&st, MPI_LONG, K, "write_all");
  MPI_Barrier(MPI_COMM_WORLD);
  check_interleaved(path, "vector view");
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, back, K, MPI_LONG, &st));
  check_count(&st, MPI_LONG, K, "read_at_all");
  for (int i = 0; i < K; ++i) CHECK(back[i] == out[i], "read_at_all: long %d is %ld", i, back[i]);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Type_free(&column));
  CHECK_MPI(MPI_Type_free(&filetype));

  /* A subarray of a K x size array of longs: rank r's column. */
  io_path("subarray", path, sizeof path);
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  int sizes[2] = {K, size}, subsizes[2] = {K, 1}, starts[2] = {0, rank};
  CHECK_MPI(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_LONG, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_LONG, filetype, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_at_all(fh, 0, out, K, MPI_LONG, &st));
  check_count(&st, MPI_LONG, K, "write_at_all");
  MPI_Barrier(MPI_COMM_WORLD);
  check_interleaved(path, "subarray view");
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_all(fh, back, K, MPI_LONG, &st));
  check_count(&st, MPI_LONG, K, "read_all");
  for (int i = 0; i < K; ++i) CHECK(back[i] == out[i], "read_all: long %d is %ld", i, back[i]);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Type_free(&filetype));
}

static void wide_ints(void) {
  char path[600];
  MPI_File fh;
  MPI_Status st;
  int out[N], back[N];
  for (int i = 0; i < N; ++i) out[i] = (int)value(rank, i);
  CHECK_MPI(MPI_Register_datarep("wide-ints", wide_read, wide_write, wide_extent, NULL));
  io_path("wide", path, sizeof path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "wide-ints", MPI_INFO_NULL));
  MPI_Aint extent = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &extent));
  CHECK(extent == 8, "MPI_INT's wide-ints file extent is %ld", (long)extent);
  MPI_Offset disp = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, 3, &disp));
  CHECK(disp == 24, "etype 3 of a wide-ints view is at byte %lld, expected 24", (long long)disp);
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * N, out, N, MPI_INT, &st));
  check_count(&st, MPI_INT, N, "wide-ints write_at");
  MPI_Barrier(MPI_COMM_WORLD);
  size_t bytes;
  unsigned char *data = io_slurp(path, &bytes);
  CHECK(bytes == (size_t)size * N * 8, "the file has %zu bytes, expected 8 per int", bytes);
  for (int i = 0; i < N; ++i) {
    int64_t v;
    memcpy(&v, data + ((size_t)rank * N + i) * 8, 8);
    CHECK(v == out[i], "wide-ints: int %d stored as %lld", i, (long long)v);
  }
  free(data);
  int peer = (rank + 1) % size;
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)peer * N, back, N, MPI_INT, &st));
  check_count(&st, MPI_INT, N, "wide-ints read_at");
  for (int i = 0; i < N; ++i) CHECK(back[i] == (int)value(peer, i), "wide-ints: read back int %d", i);

  /* Collective, through a strided view: rank r's ints at elements i * size + r. */
  MPI_Datatype column, filetype;
  CHECK_MPI(MPI_Type_vector(N, 1, size, MPI_INT, &column));
  CHECK_MPI(MPI_Type_create_resized(column, 0, (MPI_Aint)N * size * 8, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * 8, MPI_INT, filetype, "wide-ints", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_all(fh, out, N, MPI_INT, &st));
  check_count(&st, MPI_INT, N, "wide-ints write_all");
  MPI_Barrier(MPI_COMM_WORLD);
  data = io_slurp(path, &bytes);
  for (int i = 0; i < N; ++i)
    for (int r = 0; r < size; ++r) {
      int64_t v;
      memcpy(&v, data + ((size_t)i * size + r) * 8, 8);
      CHECK(v == (int)value(r, i), "wide-ints strided: int %d of rank %d stored as %lld", i, r, (long long)v);
    }
  free(data);
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, back, N, MPI_INT, &st));
  check_count(&st, MPI_INT, N, "wide-ints read_at_all");
  for (int i = 0; i < N; ++i) CHECK(back[i] == out[i], "wide-ints read_at_all: int %d is %d", i, back[i]);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Type_free(&column));
  CHECK_MPI(MPI_Type_free(&filetype));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  longs_in_external32();
  strided_collective();
  wide_ints();
  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
