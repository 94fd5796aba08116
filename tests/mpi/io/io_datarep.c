/*
 * Data representations (MPI-3.1 §13.5):
 *  - "external32" stores each element big-endian: ints, doubles and a
 *    padded struct written through such a view are big-endian in the file
 *    (judged with POSIX reads) and read back as they were;
 *  - MPI_File_get_type_extent reports external32's sizes (MPI_LONG: 4);
 *    an unknown name is MPI_ERR_UNSUPPORTED_DATAREP on every rank (views
 *    whose sizes change: io_datarep_resized.c);
 *  - MPI_Register_datarep: the program's conversion functions run on the
 *    way to and from the file (an XOR mask here), get_view names the
 *    representation, and a second registration is MPI_ERR_DUP_DATAREP.
 */
#define TEST_NAME "io_datarep"
#include "mpitest.h"
#include "iotest.h"

#define N 257

static int rank, size;
static int conversions; /* calls of the XOR functions */

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const unsigned char *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

/* The "xor-ints" representation: MPI_INT data, each int XORed with a mask. */
static int xor_convert(void *userbuf, MPI_Datatype datatype, int count, void *filebuf, MPI_Offset position,
                       void *extra) {
  int *user = (int *)userbuf + position, *file = filebuf;
  unsigned mask = *(unsigned *)extra;
  if (datatype != MPI_INT) return MPI_ERR_TYPE;
  for (int i = 0; i < count; ++i) file[i] = (int)((unsigned)user[i] ^ mask);
  ++conversions;
  return MPI_SUCCESS;
}
static int xor_read(void *userbuf, MPI_Datatype datatype, int count, void *filebuf, MPI_Offset position,
                    void *extra) {
  int *user = (int *)userbuf + position, *file = filebuf;
  unsigned mask = *(unsigned *)extra;
  if (datatype != MPI_INT) return MPI_ERR_TYPE;
  for (int i = 0; i < count; ++i) user[i] = (int)((unsigned)file[i] ^ mask);
  ++conversions;
  return MPI_SUCCESS;
}
/* The same conversions in MPI-4.0's large-count form (MPI_Register_datarep_c). */
static int conversions_c;
static int xor_convert_c(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf, MPI_Offset position,
                         void *extra) {
  ++conversions_c;
  return xor_convert(userbuf, datatype, (int)count, filebuf, position, extra);
}
static int xor_read_c(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf, MPI_Offset position,
                      void *extra) {
  ++conversions_c;
  return xor_read(userbuf, datatype, (int)count, filebuf, position, extra);
}
static int same_extent(MPI_Datatype datatype, MPI_Aint *extent, void *extra) {
  (void)extra;
  int bytes;
  MPI_Type_size(datatype, &bytes);
  *extent = bytes;
  return MPI_SUCCESS;
}
struct pair {
  int i;
  double d; /* 4 bytes of padding before it */
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  io_make_dir();
  char path[600];
  MPI_File fh;
  MPI_Status st;
  size_t bytes;
  unsigned char *data;

  /* 1. external32 ints: big-endian in the file, native when read. */
  io_path("ints", path, sizeof path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  int ints[N], back[N];
  for (int i = 0; i < N; ++i) ints[i] = (int)((unsigned)rank << 24 | ((unsigned)i * 2654435761u >> 8 & 0xffffff));
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * N, ints, N, MPI_INT, &st));
  CHECK(io_status_bytes(&st) == N * 4, "write_at moved %lld bytes", (long long)io_status_bytes(&st));
  MPI_Aint extent = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG, &extent));
  CHECK(extent == 4, "MPI_LONG's external32 file extent is %ld, expected 4", (long)extent);
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &extent));
  CHECK(extent == 8, "MPI_DOUBLE's external32 file extent is %ld", (long)extent);
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_Offset disp;
  MPI_Datatype e, t;
  CHECK_MPI(MPI_File_get_view(fh, &disp, &e, &t, rep));
  CHECK(strcmp(rep, "external32") == 0, "get_view says \"%s\"", rep);
  MPI_Barrier(MPI_COMM_WORLD);
  data = io_slurp(path, &bytes);
  CHECK(bytes == (size_t)size * N * 4, "the file has %zu bytes", bytes);
  for (int i = 0; i < N; ++i)
    CHECK(be32(data + ((size_t)rank * N + i) * 4) == (uint32_t)ints[i], "int %d is not stored big-endian", i);
  free(data);
  int peer = (rank + 1) % size;
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)peer * N, back, N, MPI_INT, &st));
  for (int i = 0; i < N; ++i)
    CHECK(back[i] == (int)((unsigned)peer << 24 | ((unsigned)i * 2654435761u >> 8 & 0xffffff)),
          "read back int %d of rank %d: %#x", i, peer, back[i]);

  /* An unknown name: refused everywhere. */
  EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP,
               "MPI_File_set_view", "no-such-rep");
  CHECK_MPI(MPI_File_close(&fh));

  /* 2. A padded struct through an external32 byte view: packed, big-endian. */
  io_path("pairs", path, sizeof path);
  MPI_Datatype pair_type;
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct(2, lens, displs, types, &pair_type));
  CHECK_MPI(MPI_Type_commit(&pair_type));
  struct pair pairs[3] = {{rank + 1, 0.5 + rank}, {-7, -1.25}, {1 << 30, 1e300}}, pairs_back[3];
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * 36, pairs, 3, pair_type, &st));
  CHECK(io_status_bytes(&st) == 36, "3 pairs are 36 bytes in external32, moved %lld", (long long)io_status_bytes(&st));
  MPI_Barrier(MPI_COMM_WORLD);
  data = io_slurp(path, &bytes);
  for (int k = 0; k < 3; ++k) {
    const unsigned char *p = data + (size_t)rank * 36 + (size_t)k * 12;
    double d;
    uint64_t u = be64(p + 4);
    memcpy(&d, &u, 8);
    CHECK(be32(p) == (uint32_t)pairs[k].i && d == pairs[k].d, "pair %d is not stored as big-endian int, double", k);
  }
  free(data);
  memset(pairs_back, 0, sizeof pairs_back);
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)rank * 36, pairs_back, 3, pair_type, &st));
  for (int k = 0; k < 3; ++k)
    CHECK(pairs_back[k].i == pairs[k].i && pairs_back[k].d == pairs[k].d, "pair %d read back wrong", k);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Type_free(&pair_type));

  /* 3. A registered representation. */
  static unsigned mask = 0x5a5aa5a5u;
  CHECK_MPI(MPI_Register_datarep("xor-ints", xor_read, xor_convert, same_extent, &mask));
  EXPECT_CLASS(MPI_Register_datarep("xor-ints", xor_read, xor_convert, same_extent, &mask), MPI_ERR_DUP_DATAREP,
               "MPI_Register_datarep", "xor-ints");
  EXPECT_CLASS(MPI_Register_datarep("external32", xor_read, xor_convert, same_extent, &mask), MPI_ERR_DUP_DATAREP,
               "MPI_Register_datarep", "external32");
  io_path("xor", path, sizeof path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "xor-ints", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_get_view(fh, &disp, &e, &t, rep));
  CHECK(strcmp(rep, "xor-ints") == 0, "get_view says \"%s\"", rep);
  conversions = 0;
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * N, ints, N, MPI_INT, &st));
  CHECK(conversions > 0, "the write conversion function never ran");
  MPI_Barrier(MPI_COMM_WORLD);
  data = io_slurp(path, &bytes);
  for (int i = 0; i < N; ++i) {
    unsigned stored;
    memcpy(&stored, data + ((size_t)rank * N + i) * 4, 4);
    CHECK(stored == ((unsigned)ints[i] ^ mask), "xor-ints: int %d stored as %#x", i, stored);
  }
  free(data);
  conversions = 0;
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)rank * N, back, N, MPI_INT, &st));
  CHECK(conversions > 0, "the read conversion function never ran");
  CHECK(memcmp(back, ints, sizeof ints) == 0, "xor-ints: read back differs");
  CHECK_MPI(MPI_File_close(&fh));

  /* 4. The same through MPI_Register_datarep_c: its functions, not the int ones, run. */
  static unsigned mask_c = 0x0ff00ff0u;
  CHECK_MPI(MPI_Register_datarep_c("xor-ints-c", xor_read_c, xor_convert_c, same_extent, &mask_c));
  EXPECT_CLASS(MPI_Register_datarep_c("xor-ints", xor_read_c, xor_convert_c, same_extent, &mask_c),
               MPI_ERR_DUP_DATAREP, "MPI_Register_datarep_c", "xor-ints");
  io_path("xor_c", path, sizeof path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "xor-ints-c", MPI_INFO_NULL));
  conversions_c = 0;
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * N, ints, N, MPI_INT, &st));
  CHECK(conversions_c > 0, "the large-count write conversion function never ran");
  MPI_Barrier(MPI_COMM_WORLD);
  data = io_slurp(path, &bytes);
  for (int i = 0; i < N; ++i) {
    unsigned stored;
    memcpy(&stored, data + ((size_t)rank * N + i) * 4, 4);
    CHECK(stored == ((unsigned)ints[i] ^ mask_c), "xor-ints-c: int %d stored as %#x", i, stored);
  }
  free(data);
  conversions_c = 0;
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)rank * N, back, N, MPI_INT, &st));
  CHECK(conversions_c > 0, "the large-count read conversion function never ran");
  CHECK(memcmp(back, ints, sizeof ints) == 0, "xor-ints-c: read back differs");
  CHECK_MPI(MPI_File_close(&fh));

  io_remove_dir();
  mt_pass();
  MPI_Finalize();
  return 0;
}
